import { Registry } from 'prom-client';
import { requestRecorder } from '../src/metrics';

const series = (route: string, method: string, status: number) =>
  `http_route="${route}",http_request_method="${method}",http_response_status_code="${status}"`;

describe('the request recorder', () => {
  it('times each route template, method and status as its own series, every request once', async () => {
    const registry = new Registry();
    const record = requestRecorder(registry);
    record('GET', '/api/v1/posts/:id', 200, 0.003);
    record('GET', '/api/v1/posts/:id', 200, 0.02);
    record('GET', '/api/v1/posts/:id', 404, 0.001);
    record('POST', '/api/v1/posts', 201, 0.2);
    const text = await registry.metrics();

    const post = series('/api/v1/posts/{id}', 'GET', 200);
    expect(text).toContain(`http_server_request_duration_seconds_bucket{le="0.005",${post}} 1`);
    expect(text).toContain(`http_server_request_duration_seconds_count{${post}} 2`);
    expect(text).toContain(
      `http_server_request_duration_seconds_count{${series('/api/v1/posts/{id}', 'GET', 404)}} 1`,
    );
    expect(text).toContain(
      `http_server_request_duration_seconds_count{${series('/api/v1/posts', 'POST', 201)}} 1`,
    );
    record('GET', '/api/v1/posts/:id', 200, 0.003);
    expect(await registry.metrics()).toContain(`http_server_request_duration_seconds_count{${post}} 3`);
  });

  it('names a route as the operation tables do, whichever spelling the router used', async () => {
    const registry = new Registry();
    const record = requestRecorder(registry);
    record('GET', '/api/v1/posts/:postId/comments', 200, 0.01);
    record('GET', '/api/v1/posts/{postId}/comments', 200, 0.01);

    expect(await registry.metrics()).toContain(
      `http_server_request_duration_seconds_count{${series('/api/v1/posts/{postId}/comments', 'GET', 200)}} 2`,
    );
  });

  it('ends a bucket at the latency objective of 300 ms', async () => {
    const registry = new Registry();
    const record = requestRecorder(registry);
    record('GET', '/api/v1/posts', 200, 0.28);
    record('GET', '/api/v1/posts', 200, 0.31);
    const text = await registry.metrics();

    const labels = series('/api/v1/posts', 'GET', 200);
    expect(text).toContain(`http_server_request_duration_seconds_bucket{le="0.25",${labels}} 0`);
    expect(text).toContain(`http_server_request_duration_seconds_bucket{le="0.3",${labels}} 1`);
    expect(text).toContain(`http_server_request_duration_seconds_bucket{le="0.5",${labels}} 2`);
  });

  it('exports no request counter beside the histogram', async () => {
    const registry = new Registry();
    requestRecorder(registry)('GET', '/api/v1/posts', 200, 0.01);

    expect(await registry.metrics()).not.toMatch(/http_requests_total|http_request_duration_seconds/);
  });
});
