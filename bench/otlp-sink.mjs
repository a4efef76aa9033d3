// BENCH_TRACING=1: the OTLP/HTTP receiver the bench's services export every span to. It reads each
// export and drops it, so what is measured is what tracing costs the services, not a backend. It
// counts the spans of each service (`GET /stats`): a span the SDK dropped (its queue full) is a
// span not paid for, and would flatter the traced figure.
import http from 'node:http';
import process from 'node:process';
import console from 'node:console';
import { Buffer } from 'node:buffer';

let exports = 0;
let bytes = 0;
/** Spans received, by `service.name`. */
const spans = {};

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, bytes, spans }));
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'POST') {
      const body = Buffer.concat(chunks);
      exports++;
      bytes += body.length;
      const json = (req.headers['content-type'] ?? '').includes('json');
      try {
        (json ? countJson : countProtobuf)(body);
      } catch (err) {
        console.error(`otlp sink: an export it could not read: ${err.message}`);
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => {
  console.log(
    `otlp sink: ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB, spans ${JSON.stringify(spans)}`,
  );
  process.exit(0);
});

const add = (service, n) => (spans[service] = (spans[service] ?? 0) + n);

function countJson(body) {
  for (const { resource, scopeSpans = [] } of JSON.parse(body.toString('utf8')).resourceSpans ?? []) {
    const name = resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue;
    for (const scope of scopeSpans) add(name ?? '?', scope.spans?.length ?? 0);
  }
}

// ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 }
// ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }
// Resource { repeated KeyValue attributes = 1 }   KeyValue { string key = 1; AnyValue value = 2 }
// AnyValue { string string_value = 1 }             ScopeSpans { repeated Span spans = 2 }
function countProtobuf(body) {
  for (const [field, resourceSpans] of fields(body)) {
    if (field !== 1) continue;
    let name = '?';
    let n = 0;
    for (const [f, part] of fields(resourceSpans)) {
      if (f === 1) name = serviceName(part) ?? name;
      if (f === 2) for (const [g] of fields(part)) if (g === 2) n++;
    }
    add(name, n);
  }
}

function serviceName(resource) {
  for (const [f, keyValue] of fields(resource)) {
    if (f !== 1) continue;
    const parts = new Map(fields(keyValue));
    if (parts.get(1)?.toString('utf8') !== 'service.name') continue;
    return new Map(fields(parts.get(2))).get(1)?.toString('utf8');
  }
  return undefined;
}

/** The fields of a protobuf message: [number, bytes] for length-delimited ones, [number, null] else. */
function* fields(buf) {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = buf[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buf.length) {
    const tag = varint();
    const type = tag & 7;
    if (type === 2) {
      const length = varint();
      yield [tag >>> 3, buf.subarray(at, at + length)];
      at += length;
      continue;
    }
    if (type === 0) varint();
    else if (type === 1) at += 8;
    else if (type === 5) at += 4;
    else throw new Error(`wire type ${type}`);
    yield [tag >>> 3, null];
  }
}
