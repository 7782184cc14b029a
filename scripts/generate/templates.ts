// Title and sentence templates per content language. Slots: {E} {E2} entities, {K} {K2}
// keywords in the article's language, {P} a place, {D} a weekday.
import type { Rng } from './prng';

export const TITLES: Record<string, string[]> = {
  en: [
    '{E} and the {K} debate: what changes now',
    '{K} latest: {E} responds as {K2} concerns grow',
    'Why {E} matters for the {K} story in {P}',
    'Live: {K} updates from {P} as {E} weighs in',
    'Analysis: {E}, {K} and what comes next',
    '{E} vs {E2}: the {K} fight explained',
    '{E} faces {K} questions after {K2} surprise',
    '{P} braces for {K} while {E} stays quiet',
  ],
  de: [
    '{E} und die {K}-Debatte: Was sich jetzt ändert',
    '{K}: {E} reagiert auf wachsende Sorgen um {K2}',
    'Warum {E} für {K} in {P} wichtig ist',
    'Live: {K} – aktuelle Lage in {P}',
    'Analyse: {E}, {K} und was als Nächstes kommt',
    '{E} gegen {E2}: Der Streit um {K} erklärt',
  ],
  fr: [
    '{E} et le débat sur {K} : ce qui change',
    '{K} : {E} répond face aux inquiétudes sur {K2}',
    'Pourquoi {E} compte pour {K} à {P}',
    'En direct : {K} à {P}, {E} réagit',
    'Analyse : {E}, {K} et la suite',
    '{E} contre {E2} : le bras de fer sur {K}',
  ],
  es: [
    '{E} y el debate sobre {K}: qué cambia ahora',
    '{K}: {E} responde ante la preocupación por {K2}',
    'Por qué {E} importa en {K} en {P}',
    'Directo: {K} en {P} mientras {E} reacciona',
    'Análisis: {E}, {K} y lo que viene',
    '{E} contra {E2}: la pelea por {K}, explicada',
  ],
  pt: [
    '{E} e o debate sobre {K}: o que muda agora',
    '{K}: {E} responde à preocupação com {K2}',
    'Por que {E} importa para {K} em {P}',
    'Ao vivo: {K} em {P} enquanto {E} reage',
    'Análise: {E}, {K} e o que vem a seguir',
    '{E} x {E2}: a disputa sobre {K} explicada',
  ],
  it: [
    '{E} e il dibattito su {K}: cosa cambia',
    '{K}: {E} risponde ai timori su {K2}',
    'Perché {E} conta per {K} a {P}',
    'Diretta: {K} a {P}, parla {E}',
    'Analisi: {E}, {K} e cosa succede ora',
    '{E} contro {E2}: la sfida su {K}',
  ],
  ja: [
    '{E}、{K}で新たな動き',
    '{K}をめぐり{E}が反応　{K2}への懸念広がる',
    '{P}で{K}　{E}の狙いは',
    '速報：{K}、{E}がコメント',
    '解説：{E}と{K}、今後の焦点',
    '{E}対{E2}　{K}めぐる攻防',
  ],
  hi: [
    '{E} और {K} पर बहस: अब क्या बदलेगा',
    '{K}: {K2} की चिंता के बीच {E} की प्रतिक्रिया',
    '{P} में {K} के लिए {E} क्यों अहम',
    'लाइव: {P} से {K} अपडेट, {E} ने कहा',
    'विश्लेषण: {E}, {K} और आगे क्या',
    '{E} बनाम {E2}: {K} पर टकराव',
  ],
};

export const SENTENCES: Record<string, string[]> = {
  en: [
    '{E} was at the centre of the {K} story on {D}.',
    'Officials in {P} said the {K} situation remains fluid.',
    'Analysts linked the {K} developments to {K2}.',
    '{E2} declined to comment on the {K} reports.',
    'The {K} debate is expected to continue through the week.',
    'Readers in {P} followed the {K} coverage closely.',
  ],
  de: [
    '{E} stand am {D} im Mittelpunkt der Berichte über {K}.',
    'Behörden in {P} erklärten, die Lage rund um {K} sei unübersichtlich.',
    'Experten sehen einen Zusammenhang zwischen {K} und {K2}.',
    '{E2} wollte sich zu {K} nicht äußern.',
    'Die Debatte über {K} dürfte die ganze Woche anhalten.',
  ],
  fr: [
    "{E} était au cœur de l'actualité sur {K} {D}.",
    'Les autorités de {P} indiquent que la situation autour de {K} reste incertaine.',
    'Les analystes relient {K} à {K2}.',
    "{E2} n'a pas souhaité commenter {K}.",
    'Le débat sur {K} devrait se poursuivre toute la semaine.',
  ],
  es: [
    '{E} estuvo en el centro de la noticia sobre {K} el {D}.',
    'Las autoridades de {P} dijeron que la situación de {K} sigue abierta.',
    'Los analistas vinculan {K} con {K2}.',
    '{E2} declinó comentar sobre {K}.',
    'Se espera que el debate sobre {K} continúe toda la semana.',
  ],
  pt: [
    '{E} esteve no centro do noticiário sobre {K} na {D}.',
    'As autoridades de {P} disseram que a situação de {K} segue indefinida.',
    'Analistas ligam {K} a {K2}.',
    '{E2} não quis comentar {K}.',
    'O debate sobre {K} deve continuar durante a semana.',
  ],
  it: [
    '{E} è stato al centro delle notizie su {K} {D}.',
    'Le autorità di {P} hanno detto che la situazione su {K} resta incerta.',
    'Gli analisti collegano {K} a {K2}.',
    '{E2} non ha commentato {K}.',
    'Il dibattito su {K} dovrebbe continuare per tutta la settimana.',
  ],
  ja: [
    '{D}、{E}が{K}をめぐる報道の中心となった。',
    '{P}の当局者は{K}の状況は流動的だと述べた。',
    '専門家は{K}と{K2}の関連を指摘している。',
    '{E2}は{K}についてコメントを控えた。',
    '{K}をめぐる議論は今週も続く見通しだ。',
  ],
  hi: [
    '{D} को {E} {K} की खबरों के केंद्र में रहे।',
    '{P} के अधिकारियों ने कहा कि {K} की स्थिति अभी साफ नहीं है।',
    'विश्लेषक {K} को {K2} से जोड़ रहे हैं।',
    '{E2} ने {K} पर टिप्पणी करने से इनकार किया।',
    '{K} पर बहस पूरे हफ्ते जारी रहने की उम्मीद है।',
  ],
};

const WEEKDAYS: Record<string, string[]> = {
  en: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
  de: ['Sonntag', 'Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag'],
  fr: ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'],
  es: ['domingo', 'lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'],
  pt: ['domingo', 'segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado'],
  it: ['domenica', 'lunedì', 'martedì', 'mercoledì', 'giovedì', 'venerdì', 'sabato'],
  ja: ['日曜日', '月曜日', '火曜日', '水曜日', '木曜日', '金曜日', '土曜日'],
  hi: ['रविवार', 'सोमवार', 'मंगलवार', 'बुधवार', 'गुरुवार', 'शुक्रवार', 'शनिवार'],
};

export interface Slots {
  E: string;
  E2: string;
  K: string;
  K2: string;
  P: string;
  weekday: number;
}

export function fill(template: string, lang: string, s: Slots): string {
  const out = template.replace(/\{(E2|E|K2|K|P|D)\}/g, (_, slot: string) =>
    slot === 'D' ? (WEEKDAYS[lang] ?? WEEKDAYS.en!)[s.weekday]! : s[slot as 'E' | 'E2' | 'K' | 'K2' | 'P'],
  );
  return out.charAt(0).toUpperCase() + out.slice(1);
}

/**
 * The same story in the article's language and in English: templates at the same index say the
 * same thing in every language (English has extra ones, used for English articles only).
 */
export function titles(rng: Rng, lang: string, local: Slots, en: Slots): { title: string; titleEn: string } {
  const own = TITLES[lang] ?? TITLES.en!;
  const i = rng.int(0, (lang === 'en' ? own.length : Math.min(own.length, TITLES.en!.length)) - 1);
  return { title: fill(own[i]!, lang, local), titleEn: fill(TITLES.en![i]!, 'en', en) };
}

/** n sentences in the article's language and their English counterparts. */
export function sentencePair(rng: Rng, lang: string, local: Slots, en: Slots, n: number): { text: string; textEn: string } {
  const own = SENTENCES[lang] ?? SENTENCES.en!;
  const picks = rng.sample(
    own.map((_, i) => i),
    n,
  );
  const join = (l: string, parts: string[]) => parts.join(l === 'ja' ? '' : ' ');
  return {
    text: join(
      lang,
      picks.map((i) => fill(own[i]!, lang, local)),
    ),
    textEn: join(
      'en',
      picks.map((i) => fill(SENTENCES.en![i]!, 'en', en)),
    ),
  };
}
