import { ClockControl } from './control/clock-control.js';
import { DashboardReads } from './control/dashboard-reads.js';
import { FaultControl } from './control/fault-control.js';
import { OutcomeControl } from './control/outcome-control.js';
import { ProgressControl, type ScopeLookup } from './control/progress-control.js';
import { ReadinessControl } from './control/readiness/readiness-control.js';
import { ResetControl } from './control/reset-control.js';
import type { Logger } from 'pino';
import { SelfServicePlans } from './domain/self-service-plans.js';
import { createApp } from './http/app.js';
import type { HttpUseCases } from './http/use-cases.js';
import type { Services } from './services.js';

/**
 * The HTTP app over what it calls, taken from the services: http/ declares what it needs
 * (http/use-cases.ts) and the wiring hands it in, so http/ never depends on the wiring.
 */
export function createHttpApp(services: Services, logger: Logger, stopping?: AbortSignal) {
  const { config, state, admin, progress, journal } = services;
  const faults = new FaultControl(state.faults);
  const lookup: ScopeLookup = {
    prediction: (id) => state.predictions.get(id),
    organization: (id) => admin.get(id),
  };
  const useCases: HttpUseCases = {
    settings: { ...config, incomingDir: services.paths.incoming },
    sharedReads: state,
    rateLimit: services.rateLimit,
    store: services.store,
    journal,
    metrics: services.metrics,
    images: services.images,
    predictions: services.predictions,
    exports: services.exports,
    shares: services.shares,
    models: state.models,
    organizations: admin,
    selfServicePlans: new SelfServicePlans(state, admin),
    resets: new ResetControl(admin, progress, faults, journal, () => services.reseed()),
    clock: new ClockControl(services.clock),
    progress: new ProgressControl(progress, lookup),
    outcomes: new OutcomeControl(progress, lookup, services.predictions),
    faults,
    timekeeper: services.clock,
    dashboard: new DashboardReads(state),
    readiness: new ReadinessControl(journal, state.organizations, config.journalEntriesPerOrganization),
    snapshots: services.snapshots,
  };
  return createApp(useCases, logger, stopping);
}
