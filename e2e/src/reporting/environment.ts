import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import { recorded, requestIdNote, startRecording } from './request-ids';

/**
 * Node's test environment, plus: each failed test's message ends with the request ids of its last
 * answers (whatever assertion failed), which the reports show beside the failure.
 */
export default class E2EEnvironment extends TestEnvironment {
  handleTestEvent(event: Circus.Event): void {
    if (event.name === 'test_start') startRecording(this.global);
    if (event.name !== 'test_done' || event.test.errors.length === 0) return;
    const ids = recorded(this.global);
    if (ids.length === 0) return;
    for (const entry of event.test.errors) {
      const error = (Array.isArray(entry) ? (entry[0] ?? entry[1]) : entry) as Error | undefined;
      if (typeof error === 'object' && error !== null && typeof error.message === 'string')
        annotate(error, requestIdNote(ids));
    }
  }
}

function annotate(error: Error, note: string): void {
  const { message } = error;
  error.message = `${message}\n\n${note}`;
  if (typeof error.stack === 'string') {
    error.stack = error.stack.includes(message)
      ? error.stack.replace(message, error.message)
      : `${error.stack}\n${note}`;
  }
}
