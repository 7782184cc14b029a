// Stands in for the MCP SDK's `validation/ajv-provider.js` in the bundles wrangler builds
// (wrangler.toml [alias]): the SDK's Server imports it only for its default JSON Schema validator,
// and our server passes the Workers-native @cfworker/json-schema one (functions/mcp/server.ts), so
// ajv, ajv-formats and fast-uri (about a third of the MCP bundle) would be dead weight.
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(): JsonSchemaValidator<T> {
    throw new Error('ajv is not bundled: pass a jsonSchemaValidator (CfWorkerJsonSchemaValidator)');
  }
}
