// The nginx configuration in front of a cluster's web instances and, when it has them, its app
// processes: /api/v2/ to the platform, everything else to the app (docs/deploy.md's one ingress
// story). nginx runs as a child of the cluster (not as the system service), so everything it writes
// stays in its own directory.

export interface NginxConfigOptions {
  /** The directory nginx runs in (`nginx -p <dir>`): pid file and temp paths go here. */
  dir: string;
  /** Where nginx listens (loopback). */
  port: number;
  /** The web instances' ports on 127.0.0.1, balanced round-robin. */
  upstreamPorts: readonly number[];
  /** The app processes' ports on 127.0.0.1; none: every path goes to the platform. */
  appPorts?: readonly number[];
}

/**
 * Which failures nginx hands to the next instance (deploy/nginx.conf says the same): a connection
 * refused or timed out (an instance restarting; a request not yet sent, so a POST too), and a 503
 * (a draining instance's instance_draining) for idempotent requests only: without non_idempotent, a
 * POST that reached an instance is never sent twice.
 */
export const UPSTREAM_RETRIES = `      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout http_503;
      proxy_next_upstream_tries 3;
      proxy_next_upstream_timeout 10s;`;

/** One upstream block: every instance kept in the rotation (max_fails=0, explained below). */
function upstream(name: string, ports: readonly number[]): string {
  // max_fails=0: an instance that refuses a connection (restarting) is not taken out for fail_timeout
  // (10 s by default, which with two instances restarted one after the other left none: 502 "no live
  // upstreams"); the request goes to the next one instead (UPSTREAM_RETRIES below).
  const servers = ports.map((port) => `    server 127.0.0.1:${port} max_fails=0;`).join("\n");
  return `  upstream ${name} {
${servers}
    keepalive 32;
    # Below the instances' 65 s keep-alive (server/platform/http/server-timeouts.ts, the app's
    # --keepAliveTimeout): otherwise an instance may close an idle connection just as nginx reuses it,
    # and a POST on it (never retried on another instance) answers 502.
    keepalive_timeout 60s;
  }`;
}

/** One location's proxying: retries, keep-alive upstream connections, the client's address, streaming. */
function proxyTo(name: string): string {
  return `      proxy_pass http://${name};
${UPSTREAM_RETRIES}
      # HTTP/1.1 with an empty Connection header lets nginx keep upstream connections open.
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      # The instances run with TRUST_PROXY=true and take the client from the first hop.
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # SSE: pass each frame on as it comes, and let a quiet stream live (keep-alives come every 15 s).
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;`;
}

export function nginxConfig({ dir, port, upstreamPorts, appPorts = [] }: NginxConfigOptions): string {
  if (upstreamPorts.length === 0) throw new Error("nginx needs at least one web instance");
  const upstreams = [upstream("platform", upstreamPorts), ...(appPorts.length > 0 ? [upstream("app", appPorts)] : [])].join("\n\n");
  const locations =
    appPorts.length > 0
      ? `    location /api/v2/ {
${proxyTo("platform")}
    }

    location / {
${proxyTo("app")}
    }`
      : `    location / {
${proxyTo("platform")}
    }`;
  return `daemon off;
master_process on;
worker_processes 1;
error_log stderr warn;
pid ${dir}/nginx.pid;

events {
  worker_connections 1024;
}

http {
  access_log off;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size 50m;

${upstreams}

  server {
    listen 127.0.0.1:${port};

${locations}
  }
}
`;
}
