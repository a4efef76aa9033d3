import './tracing';
import { runService } from '@community/service-runtime';
import { createLogger } from '@community/logging';
import { readConfig } from './config';
import { SERVICE_SCHEMA, start } from './start';

const config = readConfig();
const { service } = SERVICE_SCHEMA;
const logger = createLogger({ service, level: config.LOG_LEVEL });
runService(service, logger, () => start(config, logger));
