import { Registry } from 'prom-client';
import { requestRecorder } from '../src/metrics';

describe('the request recorder', () => {
  it('counts and times each method, route and status as its own series, every request once', async () => {
    const registry = new Registry();
    const record = requestRecorder(registry);
    record('GET', '/api/v1/posts/:id', 200, 0.003);
    record('GET', '/api/v1/posts/:id', 200, 0.02);
    record('GET', '/api/v1/posts/:id', 404, 0.001);
    record('POST', '/api/v1/posts', 201, 0.2);
    const text = await registry.metrics();
    expect(text).toContain('http_requests_total{method="GET",route="/api/v1/posts/:id",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="/api/v1/posts/:id",status="404"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/api/v1/posts",status="201"} 1');
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v1/posts/:id",status="200"} 1',
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/api/v1/posts/:id",status="200"} 2',
    );
    // A second scrape adds only what came since.
    record('GET', '/api/v1/posts/:id', 200, 0.003);
    expect(await registry.metrics()).toContain(
      'http_requests_total{method="GET",route="/api/v1/posts/:id",status="200"} 3',
    );
  });
});
