// One registry of what outlives a request (shared/cache/namespaces.ts, docs/PERFORMANCE.md "Cache
// lifetimes"), in `npm test`: no module of served code (functions/, shared/) keeps state at module
// level of its own (a `let`, or a Map, Set, WeakMap, WeakSet or cache built there), and every
// declaration of the registry carries its tier, key, lifetime, stale rule, bounds, owners and why, and
// is read by the modules it names as its owners. Constant lookup tables
// stay where they are, typed `ReadonlySet`/`ReadonlyMap` so that this rule tells them apart.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { aggregateKinds, cacheApiNamespaces, namespaces, redisNamespaces } from '../../shared/cache/namespaces';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Where module state may be built: the registry, its generic holders, and the request context the
 * holders stand on (Flights keep their work alive through it, so it cannot import the registry).
 */
const HOLDERS = [
  'shared/cache/namespaces.ts',
  'shared/cache/memory.ts',
  'shared/cache/isolate-map.ts',
  'shared/observability/round-trips.ts',
];

/** Classes whose instances hold state. */
const STATEFUL = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'IsolateCache', 'IsolateMap', 'IsolateSlot', 'Flights', 'EdgeLimits']);
/** How a constant lookup table is typed. */
const READONLY = new Set(['ReadonlySet', 'ReadonlyMap']);

const servedFiles = () =>
  ['functions', 'shared'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(dir, f))
      .sort(),
  );

/** `line: why: text` of each piece of module state that `text` declares at module level. */
function moduleState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const report = (node: ts.Node, why: string) =>
    out.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${why}: ${node.getText(source).split('\n')[0]}`);
  /** `new X(...)` of a stateful class in `node`, outside functions and classes (what runs when the module loads). */
  const stateful = (node: ts.Node, visit: (n: ts.NewExpression) => void) => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    // `namespaces.x.held.value ??= new X()`: the owner builds the registry's slot (shared/limits/edge.ts).
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionEqualsToken &&
      node.left.getText(source).startsWith('namespaces.')
    )
      return;
    // `[...new Set(list)]` removes duplicates: the Set is gone once the array is built.
    if (
      ts.isNewExpression(node) &&
      !ts.isSpreadElement(node.parent) &&
      ts.isIdentifier(node.expression) &&
      STATEFUL.has(node.expression.text)
    )
      visit(node);
    ts.forEachChild(node, (child) => stateful(child, visit));
  };
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    if (!(list.flags & ts.NodeFlags.Const)) {
      report(statement, 'a module-level let or var');
      continue;
    }
    for (const declaration of list.declarations) {
      const type = declaration.type;
      const readonly = type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && READONLY.has(type.typeName.text);
      if (declaration.initializer && !readonly)
        stateful(declaration.initializer, (node) => report(node, 'module-level state outside shared/cache/namespaces.ts'));
    }
  }
  return out;
}

describe('served code keeps its module state in the registry', () => {
  it('no module of functions/ or shared/ but the registry and its holders builds state at module level', () => {
    const files = servedFiles().filter((f) => !HOLDERS.includes(f));
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((f) => moduleState(f, readFileSync(join(ROOT, f), 'utf8')).map((o) => `${f}:${o}`));
    expect(found).toEqual([]);
  });

  it('the rule tells state from constants (so it cannot pass by matching nothing)', () => {
    const state = [
      'const cache = new Map<string, number>();',
      'export const seen = new Set();',
      'const memo = new WeakMap<object, string>();',
      'const outdated = new WeakSet<object>();',
      'const answers = new IsolateCache<string>({ entries: 1, bytes: 1 });',
      'const flights = new Flights<string>();',
      'const tables = { byName: new Map() };',
      'let clients: string | undefined;',
      'const limits = (slot.value ??= new EdgeLimits());',
      'var count = 0;',
    ];
    for (const text of state) expect(moduleState('x.ts', text), text).toHaveLength(1);
    const constants = [
      "const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);",
      'const FOLD: ReadonlyMap<string, string> = new Map([["a", "b"]]);',
      'const OFFSETS = [...new Set([0, 1, 1])];',
      'const held = namespaces.keyAuth.held;',
      'function f() { const local = new Map(); let n = 0; return [local, n]; }',
      'const make = () => new Map();',
      'export const edgeLimits = (namespaces.keyLimits.held.value ??= new EdgeLimits());',
    ];
    for (const text of constants) expect(moduleState('x.ts', text), text).toEqual([]);
  });
});

/** Each entry of the registry's `group` object: its name, its doc comment's text and tags. */
function declarations(group: string): { name: string; why: string; tags: Map<string, string> }[] {
  const file = 'shared/cache/namespaces.ts';
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  let literal: ts.ObjectLiteralExpression | undefined;
  for (const statement of source.statements)
    if (ts.isVariableStatement(statement))
      for (const d of statement.declarationList.declarations) {
        let init = d.initializer;
        while (init && ts.isAsExpression(init)) init = init.expression;
        if (ts.isIdentifier(d.name) && d.name.text === group && init && ts.isObjectLiteralExpression(init)) literal = init;
      }
  if (!literal) throw new Error(`${file}: no ${group}`);
  return literal.properties.filter(ts.isPropertyAssignment).map((p) => {
    const docs = ts.getJSDocCommentsAndTags(p).filter(ts.isJSDoc);
    const text = (c: ts.JSDoc['comment']) => (typeof c === 'string' ? c : (c ?? []).map((part) => part.text).join('')).trim();
    return {
      name: p.name.getText(source),
      why: docs.map((d) => text(d.comment)).join(' '),
      tags: new Map(docs.flatMap((d) => d.tags ?? []).map((t) => [t.tagName.text, text(t.comment)])),
    };
  });
}

describe('every declaration of the registry is complete and read by its owners', () => {
  const groups: [group: string, declared: object, tier: string | null][] = [
    ['namespaces', namespaces, 'isolate'],
    ['cacheApiNamespaces', cacheApiNamespaces, 'cache-api'],
    ['redisNamespaces', redisNamespaces, 'redis'],
    ['aggregateKinds', aggregateKinds, null],
  ];

  it.each(groups)('%s', (group, declared, tier) => {
    const found = declarations(group);
    expect(found.map((d) => d.name)).toEqual(Object.keys(declared));
    const problems: string[] = [];
    for (const { name, why, tags } of found) {
      const required = tier === null ? ['owner'] : ['tier', 'key', 'lifetime', 'stale', ...(tier === 'isolate' ? ['bounds'] : []), 'owner'];
      for (const tag of required) if (!tags.get(tag)) problems.push(`${group}.${name}: no @${tag}`);
      if (tier !== null && tags.get('tier') !== tier) problems.push(`${group}.${name}: @tier ${tags.get('tier')}, not ${tier}`);
      if (tier !== null && why === '') problems.push(`${group}.${name}: no line on why`);
      for (const file of (tags.get('owner') ?? '').split(', ').filter(Boolean))
        if (!readFileSync(join(ROOT, file), 'utf8').includes(`${group}.${name}`)) problems.push(`${file} does not read ${group}.${name}`);
    }
    expect(problems).toEqual([]);
  });
});
