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

export function renderNginxConfig(options: NginxConfigOptions): string {
  if (options.instances.length === 0) throw new Error('a sandbox needs at least one instance');
  const requestSeconds = Math.ceil(options.requestTimeoutMs / 1000) + MARGIN_SECONDS;
  const idleSeconds = Math.ceil(options.idleTimeoutMs / 1000) + MARGIN_SECONDS;
  const servers = options.instances
    // max_fails=0: an instance is never set aside; a request that cannot connect to one tries the
    // next (proxy_next_upstream), so an instance back from a restart takes requests at once.
    .map((i) => `    server ${address(i)} max_fails=0;`)
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
  upstream mock {
    least_conn;
${servers}
    keepalive 32;
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

    # No instance could answer: the interface's error shape, not nginx's HTML page.
    error_page 502 504 =503 @unavailable;
    location @unavailable {
      default_type application/json;
      add_header Retry-After 1 always;
      return 503 '{"detail":"No instance of the sandbox could answer; retry shortly."}';
    }
  }
}
`;
}

function address({ host, port }: Upstream): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
