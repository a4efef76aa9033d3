import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SafeAttributes } from '../src/safe-attributes';

it('drops query strings, full URLs, statements and captured headers before export', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SafeAttributes(), new SimpleSpanProcessor(exporter)],
  });
  const span = provider.getTracer('test').startSpan('GET /api/v1/posts');
  span.setAttributes({
    'url.path': '/api/v1/posts',
    'url.query': 'access_token=secret',
    'url.full': 'http://host/api/v1/posts?access_token=secret',
    'http.target': '/api/v1/posts?access_token=secret',
    'db.statement': "select * from keys where secret = 'x'",
    'http.request.header.authorization': 'Bearer secret',
    'http.response.header.set-cookie': 'session=secret',
    'http.route': '/api/v1/posts',
  });
  span.end();
  const [exported] = exporter.getFinishedSpans();
  expect(exported!.attributes).toEqual({ 'url.path': '/api/v1/posts', 'http.route': '/api/v1/posts' });
});
