import { waitFor } from '../src';

describe('waitFor', () => {
  it('resolves with the first truthy value the probe returns', async () => {
    let calls = 0;

    const value = await waitFor(async () => (++calls >= 3 ? { calls } : undefined), { intervalMs: 5 });

    expect(value).toEqual({ calls: 3 });
  });

  it('keeps polling through errors thrown by the probe', async () => {
    let calls = 0;

    const value = await waitFor(
      () => {
        if (++calls < 3) throw new Error('not yet');
        return 'ready';
      },
      { intervalMs: 5 },
    );

    expect(value).toBe('ready');
  });

  it('times out with a message naming what it waited for', async () => {
    await expect(
      waitFor(() => false, { timeoutMs: 100, intervalMs: 10, what: 'the outbox to drain' }),
    ).rejects.toThrow(/^timed out after 100ms waiting for the outbox to drain$/);
  });

  it('includes the last error the probe threw', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('connection refused');
        },
        { timeoutMs: 80, intervalMs: 10, what: 'the broker' },
      ),
    ).rejects.toThrow('timed out after 80ms waiting for the broker; last error: connection refused');
  });

  it('does not wait past the timeout for a probe that hangs', async () => {
    const started = Date.now();

    await expect(waitFor(() => new Promise<never>(() => {}), { timeoutMs: 100 })).rejects.toThrow(
      'timed out after 100ms',
    );
    // The probe never settles: without the timeout this would run into jest's 30 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
