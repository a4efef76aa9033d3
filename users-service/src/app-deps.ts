import type { Router } from 'express';
import type { TxDeps } from '@community/events';
import type { ServiceAppDeps, Slots } from '@community/http-kit';
import type { ExportSources } from './domain/export/remote-parts';
import type { UsageTracker } from './domain/keys/usage-tracker';
import type { OAuthSettings } from './domain/oauth/oauth-server';
import type { StreamHub } from './streams/hub';

/** What the users-service app is built from: routes and pages take it, app.ts wires it. */
export interface AppDeps extends TxDeps, ServiceAppDeps {
  usage: UsageTracker;
  oauth: OAuthSettings;
  /** The notification streams this process holds. */
  streams: StreamHub;
  /** Where user lookups wait for one of the SEARCH_CONCURRENCY slots. */
  searches: Slots;
  /** Where the export reads the other services' parts (DESIGN.md §20). */
  sources: ExportSources;
  /** REGISTRATIONS_PER_HOUR_PER_IP: registrations one address may make in an hour. */
  registrationsPerHour?: number;
  /** The account pages under /account. */
  pages?: (router: Router) => void;
}
