/* global document, URL, setTimeout, clearTimeout */
// The dashboard's client: signs in when the mock has an admin token, then polls the control
// plane once a second and rebuilds a section only when its data changed.
import { forceOutcome, wireActions } from './actions.js';
import { Unauthorized, fetchBinary, read, token } from './control-api.js';
import { fillOrganizationSelect, replaceKeepingFocus } from './dom.js';
import { downloadExport, showOverlay } from './downloads.js';
import { dateTime } from './format.js';
import { renderFaults } from './render-faults.js';
import { renderImages } from './render-images.js';
import { filterJournal, renderJournal } from './render-journal.js';
import { renderOrganizations } from './render-organizations.js';
import { renderReadiness } from './render-readiness.js';

const POLL_MS = 1000;
// Each organization's readiness reads up to 1000 journal entries: every fifth round is often enough.
const READINESS_EVERY_ROUNDS = 5;
const $ = (id) => document.getElementById(id);

const data = {
  organizations: [],
  models: new Map(),
  images: [],
  journal: [],
  faults: [],
  clock: null,
  readiness: new Map(),
};
let round = 0;
const lastText = new Map();
const thumbnails = new Map();
const openBodies = new Set();
let modelsFor = '';
let timer;
let signedIn = false;

const status = $('live-status');
const say = (text) => ($('action-result').textContent = text);

const organizationName = (id) => (id ? (data.organizations.find((o) => o.id === id)?.name ?? id) : '—');
const modelName = (orgId, modelId) => data.models.get(orgId)?.find((m) => m.id === modelId)?.name ?? modelId;

/** Runs an action; a refused token sends the page back to sign-in, any other failure is said. */
async function guard(work, what) {
  try {
    await work();
  } catch (err) {
    if (err instanceof Unauthorized) return showSignIn('The admin token was refused. Sign in again.');
    say(`Could not ${what}: ${err.message}`);
  }
}

const ctx = { say, refresh: () => poll(true), guard };

function changed(name, value) {
  const text = JSON.stringify(value);
  if (lastText.get(name) === text) return false;
  lastText.set(name, text);
  return true;
}

function thumbnailUrl(imageId) {
  if (thumbnails.has(imageId)) return thumbnails.get(imageId);
  thumbnails.set(imageId, undefined);
  fetchBinary(`/__mock/images/${encodeURIComponent(imageId)}/thumbnail.png`)
    .then((response) => response.blob())
    .then(
      (blob) => {
        const url = URL.createObjectURL(blob);
        thumbnails.set(imageId, url);
        for (const img of document.querySelectorAll('img[data-thumbnail]'))
          if (img.dataset.thumbnail === imageId) img.src = url;
      },
      () => thumbnails.delete(imageId),
    );
  return undefined;
}

function forgetThumbnails(keep) {
  for (const [id, url] of thumbnails)
    if (!keep.has(id)) {
      if (url) URL.revokeObjectURL(url);
      thumbnails.delete(id);
    }
}

const imageContext = {
  organizationName,
  modelName,
  thumbnailUrl,
  onOutcome: (predictionId, outcome) => forceOutcome(ctx, predictionId, outcome),
  onExport(event, href) {
    event.preventDefault();
    guard(async () => say(`Downloaded ${await downloadExport(href)}`), 'download the export');
  },
  onOverlay(event, href, title) {
    event.preventDefault();
    guard(() => showOverlay(href, title), 'show the overlay');
  },
};

function renderAll() {
  if (changed('organizations', [data.organizations, [...data.models]])) {
    replaceKeepingFocus(
      $('organization-list'),
      renderOrganizations(data.organizations, (id) => data.models.get(id)),
    );
    for (const select of document.querySelectorAll('select[data-org-select]'))
      fillOrganizationSelect(select, data.organizations);
    if ($('caps-storage').value === '') fillCaps();
  }
  const orgFilter = $('images-org').value;
  const images = orgFilter ? data.images.filter((i) => i.organization_id === orgFilter) : data.images;
  if (changed('images', [images, [...data.models]])) {
    forgetThumbnails(new Set(data.images.map((i) => i.id)));
    replaceKeepingFocus($('image-list'), renderImages(images, imageContext));
  }
  for (const id of openBodies) if (!data.journal.some((e) => e.request_id === id)) openBodies.delete(id);
  const journal = filterJournal(data.journal, {
    statusClass: $('journal-status').value,
    pathContains: $('journal-path').value.trim(),
  });
  if (changed('journal', [journal, [...openBodies]])) {
    replaceKeepingFocus(
      $('journal-rows'),
      renderJournal(journal, {
        organizationName,
        isOpen: (id) => openBodies.has(id),
        toggle: (id) => {
          if (!openBodies.delete(id)) openBodies.add(id);
          renderAll();
        },
      }),
    );
  }
  if (changed('readiness', [data.organizations.map((o) => o.name), [...data.readiness]]))
    replaceKeepingFocus(
      $('readiness-list'),
      renderReadiness(data.organizations, (id) => data.readiness.get(id)),
    );
  if (changed('faults', data.faults))
    replaceKeepingFocus($('fault-list'), renderFaults(data.faults, organizationName));
  if (data.clock && changed('clock', data.clock.month + data.clock.now.slice(0, 16))) {
    $('clock-now').textContent = dateTime(data.clock.now);
    $('clock-now').setAttribute('datetime', data.clock.now);
    $('clock-month').textContent = data.clock.month;
  }
}

/** The caps form starts from the chosen organization's current caps. */
function fillCaps() {
  const org = data.organizations.find((o) => o.id === $('caps-org').value);
  if (!org) return;
  $('caps-storage').value = org.plan.storage_cap_images;
  $('caps-analyses').value = org.plan.monthly_analysis_cap;
}

async function loadModels() {
  const ids = data.organizations.map((o) => o.id).join(',');
  if (ids === modelsFor) return;
  modelsFor = ids;
  const lists = await Promise.all(
    data.organizations.map((o) => read(`/__mock/organizations/${encodeURIComponent(o.id)}/models`)),
  );
  data.models = new Map(data.organizations.map((o, i) => [o.id, lists[i]]));
}

async function loadReadiness() {
  const all = await Promise.all(
    data.organizations.map((o) => read(`/__mock/organizations/${encodeURIComponent(o.id)}/readiness`)),
  );
  data.readiness = new Map(data.organizations.map((o, i) => [o.id, all[i]]));
}

/** One round of reads; true when the page may go on polling. */
async function readAll() {
  const journalOrg = $('journal-org').value;
  try {
    const [organizations, images, journal, faults, clock] = await Promise.all([
      read('/__mock/organizations'),
      read('/__mock/images'),
      read(
        `/__mock/journal?limit=200${journalOrg ? `&organization_id=${encodeURIComponent(journalOrg)}` : ''}`,
      ),
      read('/__mock/faults'),
      read('/__mock/clock'),
    ]);
    Object.assign(data, { organizations, images, journal, faults, clock });
    await loadModels();
    if (round++ % READINESS_EVERY_ROUNDS === 0) await loadReadiness();
    if (!signedIn) showDashboard();
    renderAll();
    status.textContent = `Live · updated ${new Date().toLocaleTimeString()}`;
    status.dataset.state = 'live';
    return true;
  } catch (err) {
    if (err instanceof Unauthorized) {
      showSignIn(token.get() ? 'That token was refused.' : '');
      return false;
    }
    status.textContent = `Not updating: ${err.message}`;
    status.dataset.state = 'error';
    return true;
  }
}

let inFlight;
let again = false;

/** Reads now (after an action, `fresh` also re-reads the models) and then once a second; never two rounds at once. */
async function poll(fresh = false) {
  if (fresh) modelsFor = '';
  if (inFlight) {
    again = true;
    return inFlight;
  }
  clearTimeout(timer);
  inFlight = readAll();
  const goOn = await inFlight;
  inFlight = undefined;
  if (again) {
    again = false;
    return poll();
  }
  if (goOn && !document.hidden) timer = setTimeout(poll, POLL_MS);
}

function showDashboard() {
  signedIn = true;
  $('sign-in').hidden = true;
  for (const el of document.querySelectorAll('[data-when="signed-in"]')) el.hidden = false;
  $('sign-out').hidden = !token.get();
}

function showSignIn(message) {
  clearTimeout(timer);
  signedIn = false;
  lastText.clear();
  for (const el of document.querySelectorAll('[data-when="signed-in"]')) el.hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
  status.textContent = 'Signed out';
  status.dataset.state = 'signed-out';
  $('admin-token').focus();
}

$('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  token.set($('admin-token').value);
  $('admin-token').value = '';
  poll(true);
});
$('sign-out').addEventListener('click', () => {
  token.clear();
  showSignIn('Signed out.');
});
for (const id of ['images-org', 'journal-status']) $(id).addEventListener('change', renderAll);
$('journal-org').addEventListener('change', () => poll());
$('caps-org').addEventListener('change', fillCaps);
$('journal-path').addEventListener('input', renderAll);
$('journal-filters').addEventListener('submit', (event) => event.preventDefault());
document.addEventListener('visibilitychange', () => {
  if (document.hidden) clearTimeout(timer);
  else if (signedIn) poll();
});
$('overlay-dialog').addEventListener('close', () => $('overlay-image').removeAttribute('src'));

wireActions(ctx);
poll();
