import './tracing';
import { runService } from '@community/service-runtime';
import { createLogger } from '@community/logging';
import { readConfig } from './config';
import { SERVICE, start } from './start';

const config = readConfig();
const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
runService(SERVICE, logger, () => start(config, logger));
