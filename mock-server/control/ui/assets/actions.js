/* global document, FormData */
// The control plane's actions as forms and buttons. Each one says what happened in the status
// line (read by screen readers) and asks for a refresh; none reloads the page.
import { act } from './control-api.js';

const numberOrUndefined = (value) => (value === '' || value === null ? undefined : Number(value));

export function wireActions({ say, refresh, guard }) {
  const run = (what, work) =>
    guard(async () => {
      say(await work());
      await refresh();
    }, what);
  // A form's action: its fields read when it is sent, the page never reloaded.
  const onSubmit = (id, what, work) =>
    document.getElementById(id).addEventListener('submit', (event) => {
      event.preventDefault();
      const form = new FormData(event.target);
      run(what, () => work(form));
    });

  onSubmit('clock-form', 'advance the clock', async (form) => {
    const advance = Number(form.get('amount')) * Number(form.get('unit'));
    const clock = await act('POST', '/__mock/clock', { advance_ms: advance });
    return `Clock advanced; mock time is ${clock.now}`;
  });

  document.getElementById('clock-reset').addEventListener('click', () =>
    run('reset the clock', async () => {
      const clock = await act('POST', '/__mock/clock', { reset: true });
      return `Clock back to real time: ${clock.now}`;
    }),
  );

  onSubmit('caps-form', 'set the caps', async (form) => {
    const org = String(form.get('organization'));
    const view = await act('PUT', `/__mock/organizations/${encodeURIComponent(org)}/plan`, {
      storage_cap_images: Number(form.get('storage')),
      monthly_analysis_cap: Number(form.get('analyses')),
    });
    return `${view.name}: ${view.plan.storage_cap_images} images, ${view.plan.monthly_analysis_cap} analyses a month`;
  });

  onSubmit('outcome-form', 'force the next outcome', async (form) => {
    const status = String(form.get('status'));
    const organization = String(form.get('organization'));
    await act('POST', '/__mock/predictions/outcomes', {
      organization_id: organization,
      status,
      ...(status === 'FAILED' ? { error: String(form.get('error')) || undefined } : {}),
    });
    const name = [...document.getElementById('outcome-org').options].find((o) => o.value === organization);
    return `The next prediction of ${name?.textContent ?? organization} will end ${status}`;
  });

  onSubmit('fault-form', 'set the fault', async (form) => {
    const set = await act('POST', '/__mock/faults', {
      operation_id: String(form.get('operation')),
      status: numberOrUndefined(form.get('status')),
      probability: numberOrUndefined(form.get('probability')),
      latency_ms: numberOrUndefined(form.get('latency')),
      times: numberOrUndefined(form.get('times')),
      organization_id: form.get('organization') || undefined,
    });
    return `Fault set on ${set.operation_id}`;
  });

  document.getElementById('faults-clear').addEventListener('click', () =>
    run('clear the faults', async () => {
      const { cleared } = await act('DELETE', '/__mock/faults');
      return `${cleared} fault${cleared === 1 ? '' : 's'} cleared`;
    }),
  );

  const dialog = document.getElementById('reset-dialog');
  document.getElementById('reset-open').addEventListener('click', () => {
    dialog.returnValue = '';
    dialog.showModal();
  });
  dialog.addEventListener('close', () => {
    if (dialog.returnValue !== 'confirm') return;
    run('reset', async () => {
      await act('POST', '/__mock/reset', {});
      return 'The mock was reset to its seed';
    });
  });
}

/** Complete or fail one prediction in flight. */
export function forceOutcome({ say, refresh, guard }, predictionId, status) {
  return guard(async () => {
    await act('POST', '/__mock/predictions/outcomes', {
      prediction_id: predictionId,
      status,
      ...(status === 'FAILED' ? { error: 'Failed from the dashboard' } : {}),
    });
    // A forced FAILED ends the prediction at once; a forced COMPLETED lets its run finish as it would.
    say(
      status === 'FAILED'
        ? `Prediction ${predictionId} ended FAILED`
        : `Prediction ${predictionId} will complete with its run's own result`,
    );
    await refresh();
  }, `force ${status}`);
}
