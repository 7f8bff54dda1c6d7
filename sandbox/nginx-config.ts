/**
 * The nginx.conf of a sandbox: one address in front of N mock instances. Pure: settings in, text
 * out; every path in it is relative to the prefix nginx is started with (`nginx -p DIR -c
 * DIR/nginx.conf`), so nothing is written outside the sandbox's folder and nginx needs no
 * privilege (no /run/nginx.pid, no /var/log/nginx, no /var/lib/nginx).
 *
 * Each setting is a choice about this API's traffic; docs/sandbox.md, "Deploy it for real",
 * says what each one costs.
 */
export interface Upstream {
  host: string;
  port: number;
}

export interface NginxConfigOptions {
  /** Where clients reach the sandbox. */
  listen: Upstream;
  instances: Upstream[];
  /** The mock's --max-upload-bytes: the largest file it takes. */
  maxUploadBytes: number;
  /** The mock's --request-timeout-ms: the longest one request may take, upload included. */
  requestTimeoutMs: number;
  /** The mock's --idle-timeout-ms: the longest a body may stall before the mock refuses it. */
  idleTimeoutMs: number;
  /**
   * The account nginx's workers run as when a root master starts them; nginx's own default
   * (nobody:nobody) names a group Debian does not have. Omitted when not started as root.
   */
  workerUser?: { user: string; group: string };
}

/**
 * Room for a multipart upload's envelope (boundaries, part headers, a name) above the file itself:
 * a file at the mock's limit reaches the mock, and one past it gets the mock's own 413 (the
 * document's shape), not nginx's HTML page.
 */
export const MULTIPART_ENVELOPE_BYTES = 1024 * 1024;

/** Above the mock's own limits, so that the mock, which answers in the document's shapes, decides. */
const MARGIN_SECONDS = 10;

/**
 * An instance nginx could not connect to (or that died before answering) is set aside this long
 * before it is tried again: long enough that a dead instance costs one failed try per period
 * instead of one per request, short enough that one brought back by the launcher (a few seconds)
 * takes requests again soon after.
 */
export const FAIL_TIMEOUT_SECONDS = 5;

/** Under the mock's keepAliveTimeout (5 s): see the upstream block. */
const UPSTREAM_KEEPALIVE_SECONDS = 4;

/**
 * What the 503 of a request no instance answered says, by whether it reached one. nginx's
 * $upstream_connect_time lists one entry per instance tried, "-" for one it could not connect to:
 * a number last means the request was sent to an instance that then stopped, so it may have taken
 * effect, and the client is told what to read before sending it again. Each text is a JSON string
 * body's content: no double quote, no backslash.
 */
const UNAVAILABLE_DETAILS: ReadonlyArray<readonly [pattern: string, detail: string]> = [
  ['~^0 ', 'No instance of the sandbox could be reached: nothing was done. Retry shortly.'],
  [
    '~^1 (GET|HEAD|OPTIONS) ',
    'The instance that took this request stopped before answering, and no other could. Retry shortly.',
  ],
  [
    '~^1 POST /api/v1/(upload|image)$',
    'The request reached an instance that stopped before answering: it may have taken effect (an image stored, whose id you never got). Check the image count in your organization usage before uploading again.',
  ],
  [
    '~^1 POST /api/v1/upload/[^/]+/(complete|abort)$',
    'The request reached an instance that stopped before answering: it may have taken effect. Read the image (GET /api/v1/upload/{image_id}) before retrying: an upload_status other than uploading means it did.',
  ],
  [
    '~^1 POST /api/v1/predict$',
    'The request reached an instance that stopped before answering: it may have taken effect. Sending it again is safe while that prediction runs: the answer is the prediction already in flight (status skipped), not counted twice.',
  ],
  [
    '~^1 POST /api/v1/shares$',
    'The request reached an instance that stopped before answering: it may have taken effect. Sending it again answers the live share of the segmentation if it did.',
  ],
  [
    '~^1 DELETE ',
    'The request reached an instance that stopped before answering: it may have taken effect. Read the resource before retrying: 404 means it was deleted.',
  ],
  [
    'default',
    'The request reached an instance that stopped before answering: it may have taken effect. Read what it changes before retrying.',
  ],
];

export function renderNginxConfig(options: NginxConfigOptions): string {
  if (options.instances.length === 0) throw new Error('a sandbox needs at least one instance');
  const requestSeconds = Math.ceil(options.requestTimeoutMs / 1000) + MARGIN_SECONDS;
  const idleSeconds = Math.ceil(options.idleTimeoutMs / 1000) + MARGIN_SECONDS;
  const servers = options.instances
    // One failed try sets an instance aside for FAIL_TIMEOUT_SECONDS: a dead instance is tried
    // once per period, not first on every request (each try costs a connection refused, or
    // proxy_connect_timeout on a network that drops packets). An instance's own 5xx is no failure
    // here (proxy_next_upstream has no http_5xx): only "could not connect" and "died mid-request".
    .map((i) => `    server ${address(i)} max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s;`)
    .join('\n');
  return `# Written by the sandbox launcher (sandbox/nginx-config.ts); paths are relative to nginx -p.
${options.workerUser ? `user ${options.workerUser.user} ${options.workerUser.group};\n` : ''}daemon off;
worker_processes 1;
pid nginx.pid;
error_log logs/error.log warn;

events {
  worker_connections 1024;
}

http {
  client_body_temp_path temp/client-body;
  proxy_temp_path temp/proxy;
  fastcgi_temp_path temp/fastcgi;
  uwsgi_temp_path temp/uwsgi;
  scgi_temp_path temp/scgi;

  # Which instance answered each request: how a test (and a person) sees the load spread.
  log_format sandbox '$remote_addr "$request" $status $body_bytes_sent upstream=$upstream_addr '
                     'upstream_status=$upstream_status ms=$request_time';
  access_log logs/access.log sandbox;
  server_tokens off;

  # least_conn, not round-robin: requests here differ by orders of magnitude (a multi-GB part
  # PUT or a long prediction poll beside a 1 ms read); round-robin would keep handing new requests
  # to an instance already busy with a long one. No stickiness: every instance answers every
  # request from the shared state, which is the point of the sandbox.
  # Whether the last instance tried took the request (its connect time a number, not "-").
  map $upstream_connect_time $sandbox_reached {
    "~[0-9]$" 1;
    default 0;
  }
  map "$sandbox_reached $request_method $uri" $sandbox_unavailable_detail {
${UNAVAILABLE_DETAILS.map(([pattern, detail]) => `    ${pattern === 'default' ? 'default' : `"${pattern}"`} "${detail}";`).join('\n')}
  }

  upstream mock {
    least_conn;
${servers}
    keepalive 32;
    # Below the instances' own idle keep-alive timeout (5 s, mock-server/server.ts): nginx closes an
    # idle connection first. The other way round, a request sent on a connection the instance is
    # closing at that moment is cut, and a POST cut so is not retried: a 503 for nothing.
    keepalive_timeout ${UPSTREAM_KEEPALIVE_SECONDS}s;
  }

  server {
    listen ${address(options.listen)};

    # Bodies stream to the instance as they arrive, not spooled to nginx's disk first: an upload
    # is read once, its progress is the client's, and a refusal (413, 402) comes before the body.
    proxy_request_buffering off;
    proxy_buffering off;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    client_max_body_size ${options.maxUploadBytes + MULTIPART_ENVELOPE_BYTES};

    # Uploads and long polls may take as long as the mock allows a request to; the mock answers a
    # stalled body itself (400 after its idle timeout), so nginx waits a little longer than it does.
    client_body_timeout ${idleSeconds}s;
    proxy_connect_timeout 2s;
    proxy_send_timeout ${requestSeconds}s;
    proxy_read_timeout ${requestSeconds}s;

    # A request goes to another instance only when the first could not be reached or died before
    # answering, and only for GET, HEAD, PUT, DELETE, OPTIONS (nginx's idempotent methods): a POST
    # that reached an instance is never sent again, since it may have taken effect (an upload
    # counted, a prediction queued). An instance's own answer, 5xx included, is passed on as it is.
    proxy_next_upstream error timeout;
    proxy_next_upstream_tries ${options.instances.length};

    # Presigned part URLs, share pages and redirects are built from --public-base-url: this address.
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;

    location / {
      proxy_pass http://mock;
    }

    # No instance answered: the interface's error shape, not nginx's HTML page, saying whether the
    # request reached one (then it may have taken effect, and what to read to find out).
    error_page 502 504 =503 @unavailable;
    location @unavailable {
      default_type application/json;
      add_header Retry-After 1 always;
      return 503 '{"detail":"$sandbox_unavailable_detail"}';
    }
  }
}
`;
}

function address({ host, port }: Upstream): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
