import escapeHtml from 'escape-html';

/** Where the page and its client files are served; the page links its files absolutely. */
export const DASHBOARD_PATH = '/__mock/ui';
const ASSETS = `${DASHBOARD_PATH}/assets`;

/**
 * The dashboard's shell: every section, form and label is here, rendered by the server; the client
 * script (assets/dashboard.js) only fills the lists from the control plane's JSON and wires the
 * forms. The shell holds no state of the mock, so it is served without the admin token: every
 * read and action it makes sends the token, and each of those is checked. The sign-in panel is
 * shown alone when the mock was started with an admin token and this tab holds none.
 */
export function renderDashboardPage(
  /** Every operationId of the document: the targets a fault can be set on. */
  operationIds: Iterable<string>,
): string {
  const operations = [...operationIds]
    .sort()
    .map((id) => `<option value="${escapeHtml(id)}">${escapeHtml(id)}</option>`)
    .join('');
  return `${UP_TO_OPERATIONS}${operations}${REST}`;
}

// The page's markup, cut where the fault form's operations go.
const UP_TO_OPERATIONS = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Mock dashboard · cellseg-mock</title>
<link rel="icon" href="${ASSETS}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS}/dashboard.css">
<script type="module" src="${ASSETS}/dashboard.js"></script>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="top">
  <h1>cellseg-mock <span class="muted">dashboard · interface 1.1.0</span></h1>
  <p id="live-status" class="status" role="status" aria-live="polite" data-testid="live-status">Connecting…</p>
  <nav aria-label="Sections" class="sections" hidden data-when="signed-in">
    <a href="#organizations">Organizations</a>
    <a href="#images">Images</a>
    <a href="#journal">Journal</a>
    <a href="#readiness">Readiness</a>
    <a href="#controls">Controls</a>
  </nav>
  <button type="button" id="sign-out" hidden>Sign out</button>
</header>

<main id="content" tabindex="-1">
<section id="sign-in" class="panel sign-in" aria-labelledby="sign-in-title" hidden>
  <h2 id="sign-in-title">Sign in</h2>
  <p>This mock was started with <code>--admin-token</code>. The token is kept in this tab only
  (sessionStorage) and sent as <code>Authorization: Bearer</code>; it never goes into a URL.</p>
  <form id="sign-in-form">
    <label for="admin-token">Admin token</label>
    <input id="admin-token" name="token" type="password" autocomplete="current-password" required>
    <button type="submit">Sign in</button>
  </form>
  <p id="sign-in-error" class="error" role="alert"></p>
</section>

<div class="layout" data-when="signed-in" hidden>
<div class="views">
<section id="organizations" class="panel" aria-labelledby="organizations-title">
  <h2 id="organizations-title">Organizations</h2>
  <div id="organization-list" class="cards" data-testid="organizations"></div>
</section>

<section id="images" class="panel" aria-labelledby="images-title">
  <h2 id="images-title">Images and predictions</h2>
  <div class="filters">
    <label for="images-org">Organization</label>
    <select id="images-org" data-org-select="all"><option value="">All</option></select>
  </div>
  <div id="image-list" class="images" data-testid="images"></div>
</section>

<section id="journal" class="panel" aria-labelledby="journal-title">
  <h2 id="journal-title">Request journal</h2>
  <form class="filters" id="journal-filters">
    <span><label for="journal-org">Organization</label>
    <select id="journal-org" data-org-select="all"><option value="">All</option></select></span>
    <span><label for="journal-status">Status</label>
    <select id="journal-status">
      <option value="">All</option><option value="2">2xx</option><option value="3">3xx</option>
      <option value="4">4xx</option><option value="5">5xx</option><option value="0">dropped</option>
    </select></span>
    <span><label for="journal-path">Path contains</label>
    <input id="journal-path" type="search" autocomplete="off"></span>
  </form>
  <div class="table-wrap"><table class="journal" data-testid="journal">
    <caption class="visually-hidden">Newest request first; Details shows the bodies</caption>
    <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th>
    <th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Organization</th>
    <th scope="col">Request id</th><th scope="col"><span class="visually-hidden">Bodies</span></th></tr></thead>
    <tbody id="journal-rows"></tbody>
  </table></div>
</section>

<section id="readiness" class="panel" aria-labelledby="readiness-title">
  <h2 id="readiness-title">Readiness</h2>
  <p class="muted">What each organization's client has met of the cases production shows, from its
  journal (docs/readiness.md); <code>cellseg-mock readiness run</code> puts its tests through the rest.</p>
  <div id="readiness-list" class="cards" data-testid="readiness"></div>
</section>
</div>

<section id="controls" class="panel controls" aria-labelledby="controls-title">
  <h2 id="controls-title">Controls</h2>
  <p id="action-result" class="action-result" role="status" aria-live="polite"></p>

  <h3>Clock</h3>
  <p>Mock time: <time id="clock-now" data-testid="clock-now">…</time> (month <span id="clock-month">…</span>)</p>
  <form id="clock-form" class="stack">
    <span class="row"><label for="clock-amount">Advance by</label>
    <input id="clock-amount" name="amount" type="number" min="1" step="1" value="1" required>
    <label for="clock-unit" class="visually-hidden">Unit</label>
    <select id="clock-unit" name="unit"><option value="3600000">hours</option>
    <option value="86400000" selected>days</option></select></span>
    <span class="row"><button type="submit">Advance clock</button>
    <button type="button" id="clock-reset">Back to real time</button></span>
  </form>

  <h3>Next prediction</h3>
  <form id="outcome-form" class="stack">
    <label for="outcome-org">Organization</label>
    <select id="outcome-org" name="organization" data-org-select="required" required></select>
    <label for="outcome-status">Ends</label>
    <select id="outcome-status" name="status"><option value="COMPLETED">COMPLETED</option>
    <option value="FAILED">FAILED</option></select>
    <label for="outcome-error">Error of a FAILED one</label>
    <input id="outcome-error" name="error" type="text" value="Failed from the dashboard">
    <button type="submit">Force the next outcome</button>
  </form>

  <h3>Plan caps</h3>
  <form id="caps-form" class="stack">
    <label for="caps-org">Organization</label>
    <select id="caps-org" name="organization" data-org-select="required" required></select>
    <label for="caps-storage">Storage cap (images)</label>
    <input id="caps-storage" name="storage" type="number" min="0" step="1" required>
    <label for="caps-analyses">Analyses per month</label>
    <input id="caps-analyses" name="analyses" type="number" min="0" step="1" required>
    <button type="submit">Set caps</button>
  </form>

  <h3>Faults</h3>
  <form id="fault-form" class="stack">
    <label for="fault-operation">Operation</label>
    <select id="fault-operation" name="operation" required>`;

const REST = `</select>
    <label for="fault-status">Error status (empty: none)</label>
    <input id="fault-status" name="status" type="number" min="400" max="599" step="1" placeholder="503">
    <label for="fault-probability">Error rate (0 to 1, empty: every request)</label>
    <input id="fault-probability" name="probability" type="number" min="0" max="1" step="0.05">
    <label for="fault-latency">Added latency (ms)</label>
    <input id="fault-latency" name="latency" type="number" min="0" step="1">
    <label for="fault-times">Times (empty: until cleared)</label>
    <input id="fault-times" name="times" type="number" min="1" step="1">
    <label for="fault-org">Only for organization</label>
    <select id="fault-org" name="organization" data-org-select="any"><option value="">Any</option></select>
    <button type="submit">Set fault</button>
  </form>
  <ul id="fault-list" class="faults" data-testid="faults"></ul>
  <button type="button" id="faults-clear">Clear all faults</button>

  <h3>Reset</h3>
  <p>Back to the seed: images, predictions, shares, faults, journal and clock.</p>
  <button type="button" id="reset-open" class="danger">Reset everything…</button>
</section>
</div>
</main>

<dialog id="reset-dialog" aria-labelledby="reset-dialog-title">
  <form method="dialog">
    <h2 id="reset-dialog-title">Reset the mock?</h2>
    <p>Every image, prediction and share is deleted and the seed reloaded. This cannot be undone.</p>
    <div class="row"><button value="cancel" autofocus>Cancel</button>
    <button value="confirm" class="danger" id="reset-confirm">Reset</button></div>
  </form>
</dialog>

<dialog id="overlay-dialog" aria-labelledby="overlay-dialog-title">
  <h2 id="overlay-dialog-title">Overlay</h2>
  <img id="overlay-image" alt="">
  <form method="dialog"><button>Close</button></form>
</dialog>
</body>
</html>
`;
