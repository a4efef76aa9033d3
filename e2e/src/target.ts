import { WebhookReceiver } from './receiver';
import { externalSettings } from './settings';
import { startOwnedStack, type OwnedStack, type OwnedStackOptions } from './stack/owned-stack';
import { World } from './world';

/** The stack a test file runs against, the suite's webhook receiver, and the people in it. */
export interface Target {
  baseUrl: string;
  /** The stack's processes and fault switches; null when E2E_BASE_URL names someone else's stack. */
  owned: OwnedStack | null;
  world: World;
  receiver: WebhookReceiver;
  close(): Promise<void>;
}

/** Starts an own stack (default) or connects to E2E_BASE_URL; `label` names the run's database. */
export async function openTarget(label: string, options: OwnedStackOptions = {}): Promise<Target> {
  const external = externalSettings();
  if (external) {
    const receiver = await WebhookReceiver.start({
      bind: external.receiverBind,
      publicHost: external.receiverHost,
      port: external.receiverPort,
    });
    return {
      baseUrl: external.baseUrl,
      owned: null,
      world: new World(external.baseUrl, external.admin),
      receiver,
      close: () => receiver.close(),
    };
  }
  const owned = await startOwnedStack(label, options);
  const receiver = await WebhookReceiver.start();
  return {
    baseUrl: owned.baseUrl,
    owned,
    world: new World(owned.baseUrl, owned.admin),
    receiver,
    async close() {
      await receiver.close();
      await owned.stop();
    },
  };
}

/** For the files under test/owned-stack, which need the processes and links they break. */
export async function openOwnedTarget(
  label: string,
  options: OwnedStackOptions = {},
): Promise<Target & { owned: OwnedStack }> {
  const target = await openTarget(label, options);
  if (!target.owned)
    throw new Error('this file needs the stack the suite starts itself (unset E2E_BASE_URL)');
  return target as Target & { owned: OwnedStack };
}

/**
 * The target of one test file: opened before its tests (a stack takes up to two minutes to start)
 * and closed after them. Tests read it when they run: `const { world } = target();`.
 */
export function targetOfFile<T extends Target>(open: () => Promise<T>): () => T {
  let target: T | undefined;
  beforeAll(async () => {
    target = await open();
  }, 120_000);
  afterAll(() => target?.close(), 60_000);
  return () => {
    if (!target) throw new Error('the target opens in beforeAll: read it inside a test');
    return target;
  };
}
