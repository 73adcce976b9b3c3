import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';

/** One HTTP response, as a client saw it. */
export interface ResponseSample {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  /** The Content-Type header, if any. */
  contentType?: string;
  /** Response headers (names in lower case), for the headers the document marks required. */
  headers?: OutgoingHttpHeaders;
  /** The parsed JSON body, the text of any other body, or undefined when there is none. */
  body?: unknown;
}

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const ROOT_ID = 'openapi-document';

interface PathTemplate {
  template: string;
  pattern: RegExp;
  parameters: number;
}

/**
 * Turns an OpenAPI 3.0 schema into JSON Schema (draft 7): `nullable`, and `$ref`s into the document.
 * With `closed`, an object schema that lists properties and says nothing of others admits no others.
 */
function toJsonSchema(schema: unknown, closed = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, closed));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#/') ? `${ROOT_ID}${value}` : value;
    else if (key === 'example' || key === 'xml' || key === 'externalDocs' || key === 'discriminator' || key.startsWith('x-')) continue;
    else if (key === 'properties' || key === 'patternProperties')
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, toJsonSchema(s, closed)]));
    else out[key] = toJsonSchema(value, closed);
  }
  if (closed && out.properties && out.additionalProperties === undefined && !out.allOf) out.additionalProperties = false;
  // OpenAPI 3.0.3: `nullable` adds null to the values `type` allows; without a type it allows nothing more.
  if (out.nullable === true && out.type !== undefined) {
    out.type = [...[out.type].flat(), 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  delete out.nullable;
  return out;
}

const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const isJson = (type: string) => type === 'application/json' || /^application\/[^/]+\+json$/.test(type);

/**
 * Checks responses against an OpenAPI 3.0 document: that the operation exists, that it documents the
 * status, the content type and the required headers, and that the body matches the response schema.
 */
export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly templates: PathTemplate[];
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `closedObjects`: a response field the schema does not list is a violation (a client generated
   * from the document would not know it), unless the schema allows additional properties.
   */
  constructor(
    readonly document: Json,
    private readonly options: { closedObjects?: boolean } = {},
  ) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) this.ajv.addFormat(format, true);
    this.ajv.addSchema({ $id: ROOT_ID, components: toJsonSchema(document.components ?? {}, options.closedObjects) });
    this.templates = Object.keys(document.paths ?? {})
      .map((template) => {
        const parameters = (template.match(/\{[^}]+\}/g) ?? []).length;
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('');
        return { template, pattern: new RegExp(`^${source}/?$`), parameters };
      })
      // A literal segment wins over a parameter (…/matching-rules/order before …/matching-rules/{id}).
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** The document's path template for a concrete path, if any. */
  templateFor(path: string): string | undefined {
    const bare = path.split('?')[0];
    return this.templates.find((t) => t.pattern.test(bare))?.template;
  }

  /** The operation documented for this method and path, if any. */
  operationFor(method: string, path: string): { template: string; operation: Json } | undefined {
    const bare = path.split('?')[0];
    const m = method.toLowerCase();
    for (const t of this.templates) {
      if (!t.pattern.test(bare)) continue;
      const operation = this.document.paths[t.template]?.[m];
      if (operation && METHODS.includes(m)) return { template: t.template, operation };
    }
    return undefined;
  }

  /** Violations of the document by one response (empty when it conforms). */
  validate(sample: ResponseSample): string[] {
    const found = this.operationFor(sample.method, sample.path);
    const name = `${sample.method.toUpperCase()} ${sample.path.split('?')[0]} → ${sample.status}`;
    if (!found) return [`${name}: no such operation in the document`];
    const responses: Json = found.operation.responses ?? {};
    const response = responses[String(sample.status)] ?? responses[`${String(sample.status)[0]}XX`] ?? responses.default;
    if (!response) return [`${name}: status ${sample.status} is not documented for ${sample.method.toUpperCase()} ${found.template}`];
    const violations: string[] = [];
    for (const [header, spec] of Object.entries((response.headers ?? {}) as Json)) {
      if (spec?.required && sample.headers?.[header.toLowerCase()] === undefined) violations.push(`${name}: header ${header} is missing`);
    }
    const content = (response.content ?? {}) as Json;
    const type = mediaType(sample.contentType);
    const hasBody = sample.body !== undefined && sample.body !== '';
    if (!hasBody) return violations;
    const documented = Object.keys(content);
    const key =
      documented.find((k) => mediaType(k) === type) ??
      documented.find((k) => k.endsWith('/*') && type.startsWith(k.slice(0, -1))) ??
      documented.find((k) => k === '*/*');
    if (!key) {
      violations.push(`${name}: content type "${type || '(none)'}" is not documented (documented: ${documented.join(', ') || 'no body'})`);
      return violations;
    }
    const schema = content[key]?.schema;
    if (!schema) return violations;
    if (isJson(type) && typeof sample.body === 'string') {
      violations.push(`${name}: the ${type} body is not JSON`);
      return violations;
    }
    const cacheKey = `${sample.method.toLowerCase()} ${found.template} ${sample.status} ${key}`;
    let check = this.compiled.get(cacheKey);
    if (!check) {
      check = this.ajv.compile(toJsonSchema(schema, this.options.closedObjects) as object);
      this.compiled.set(cacheKey, check);
    }
    if (!check(sample.body)) {
      for (const e of check.errors ?? []) {
        violations.push(`${name}: body${e.instancePath || ''} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      }
    }
    return violations;
  }

  /** Violations of a named component schema by a value (for answers outside the documented operations). */
  validateComponent(name: string, value: unknown, label: string): string[] {
    let check = this.compiled.get(`#component ${name}`);
    if (!check) {
      check = this.ajv.compile({ $ref: `${ROOT_ID}#/components/schemas/${name}` });
      this.compiled.set(`#component ${name}`, check);
    }
    return check(value) ? [] : (check.errors ?? []).map((e) => `${label}: ${name}${e.instancePath} ${e.message}`);
  }
}

/**
 * Calls `onResponse` with every response the server sends through its request handler (status,
 * headers and the whole body, JSON parsed), without changing what the client receives.
 */
export function recordResponses(server: Server, onResponse: (sample: ResponseSample) => void): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array),
      );
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as ServerResponse['write'];
    res.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as ServerResponse['end'];
    res.on('finish', () => {
      const headers = res.getHeaders();
      const contentType = headers['content-type'] === undefined ? undefined : String(headers['content-type']);
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text === '' ? undefined : text;
      if (text !== '' && isJson(mediaType(contentType))) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      onResponse({ method: req.method ?? 'GET', path: req.url ?? '/', status: res.statusCode, contentType, headers, body });
    });
    for (const listener of listeners) listener.call(server, req, res);
  });
}
