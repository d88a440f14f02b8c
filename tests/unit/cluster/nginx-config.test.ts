// The nginx in front of the web instances and the apps (server/cluster/nginx-config.ts and
// deploy/nginx.conf) as a rolling restart needs it: no instance taken out after a failure, a refused
// connection retried on the next one, a draining instance's 503 retried for idempotent requests only,
// and (compose) names looked up again as containers are recreated; /api/v2/ to the platform and
// everything else to the app, as docs/deploy.md routes them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nginxConfig } from "@/server/cluster/nginx-config";

const generated = nginxConfig({ dir: "/tmp/inlay-nginx-x", port: 8080, upstreamPorts: [4101, 4102], appPorts: [3101, 3102] });
const platformOnly = nginxConfig({ dir: "/tmp/inlay-nginx-x", port: 8080, upstreamPorts: [4101, 4102] });
const compose = readFileSync("deploy/nginx.conf", "utf8");
const directive = (config: string, name: string) => config.match(new RegExp(`^\\s*${name}\\s+([^;{]*);`, "gm")) ?? [];

describe.each([
  ["npm run cluster's", generated],
  ["deploy/nginx.conf's", compose],
])("%s nginx", (_name, config) => {
  it("keeps every instance in the rotation and retries what it may", () => {
    const servers = directive(config, "server");
    expect(servers).toHaveLength(4);
    for (const server of servers) expect(server).toMatch(/ max_fails=0;$/);
    // Exactly these, in both locations: non_idempotent would send a POST that reached an instance to another one.
    expect(directive(config, "proxy_next_upstream")).toEqual(Array(2).fill(expect.stringMatching(/proxy_next_upstream error timeout http_503;$/)));
    expect(directive(config, "proxy_connect_timeout")).toHaveLength(2);
    expect(directive(config, "proxy_next_upstream_tries")).toHaveLength(2);
  });

  it("sends /api/v2/ to the platform and everything else to the app, streams unbuffered", () => {
    expect(config).toMatch(/location \/api\/v2\/ \{\s+proxy_pass http:\/\/platform;/);
    expect(config).toMatch(/location \/ \{\s+proxy_pass http:\/\/app;/);
    expect(directive(config, "proxy_buffering")).toEqual(Array(2).fill(expect.stringContaining("off")));
  });
});

describe("npm run cluster's nginx without apps", () => {
  it("sends every path to the platform", () => {
    expect(directive(platformOnly, "server")).toHaveLength(2);
    expect(platformOnly).toMatch(/location \/ \{\s+proxy_pass http:\/\/platform;/);
    expect(platformOnly).not.toContain("upstream app");
  });
});

describe("deploy/nginx.conf", () => {
  it("looks the web containers up through Docker's resolver, again as they change", () => {
    expect(directive(compose, "resolver")).toEqual([expect.stringContaining("resolver 127.0.0.11 valid=")]);
    expect(directive(compose, "zone")).toHaveLength(2);
    for (const name of ["web-1", "web-2"]) expect(compose).toMatch(new RegExp(`server ${name}:4010 resolve `));
    for (const name of ["app-1", "app-2"]) expect(compose).toMatch(new RegExp(`server ${name}:3000 resolve `));
  });
});
