/*
 * The workarounds for runtime and library quirks, one file each with the bench/RESULTS.md section
 * that found it and a canary test (test/) that fails the day it is no longer needed. The patched
 * postgres.js queue is patches/postgres+3.4.9.patch, where patch-package applies it from; its canary
 * is test/postgres-queue.test.ts.
 */
export { bornAs } from './express-prototypes';
export { keepTickObjectShape, keptTickObject } from './tick-shape';
export { FlightLine, type InLine } from './flight-line';
