// The deployment files (Dockerfile, deploy/compose.yaml, deploy/kubernetes/), rendered and read as an
// orchestrator would: the whole product (the platform's web and worker roles, the app), every long-running
// container probed (/healthz alive, /readyz ready), resources set, secrets only by reference, the start
// commands those of package.json, the migrations a one-shot step, the PostgreSQL connections of every pod
// within the server's default. No container daemon here: the Dockerfile is read, not built (docs/deploy.md).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { modelProviderWarning } from "@/server/platform/health";
import { PLATFORM_ENTRIES } from "@/server/platform-build";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** Names whose values are secrets (or carry one, as a connection string's password). */
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|_KEY($|_)|DATABASE_URL|REDIS_URL|SMTP_URL/;

/** `node dist/platform/<name>.js` is what `npm run <script>` runs in production (server/entry.sh). */
function compiledCommand(script: string): string[] {
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  const match = /^sh server\/entry\.sh (\w+) (\S+)$/.exec(scripts[script] ?? "");
  if (!match) throw new Error(`package.json's ${script} script does not go through server/entry.sh: ${scripts[script]}`);
  const [, name, source] = match as unknown as [string, keyof typeof PLATFORM_ENTRIES, string];
  expect(PLATFORM_ENTRIES[name]).toBe(source);
  return ["node", `dist/platform/${name}.js`];
}

/** `npm start` without npm: node runs Next's own binary with the script's arguments (server/entry.sh role). */
function appCommand(): string[] {
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  const match = /^(?:\w+=\S+ )*next (start .*)$/.exec(scripts.start ?? "");
  if (!match) throw new Error(`package.json's start script is not next start: ${scripts.start}`);
  return ["node", "node_modules/next/dist/bin/next", ...match[1]!.split(" ")];
}

/** The app's command carries the script's arguments and a listening address and port. */
function expectAppCommand(command: string[] | undefined, where: string): void {
  const expected = appCommand();
  expect(command?.slice(0, 3), where).toEqual(expected.slice(0, 3));
  for (const argument of expected.slice(3)) expect(command, where).toContain(argument);
  expect(command?.[command.indexOf("--hostname") + 1], where).toBe("0.0.0.0");
  expect(command?.[command.indexOf("--port") + 1], where).toMatch(/^\d+$/);
}

/**
 * PostgreSQL's default max_connections (100) less its 3 reserved for superusers: what every pod together
 * may open. A pod opens up to DATABASE_POOL_MAX (lib/env.ts: 20 unless set), and a platform process one
 * more for the run event writer (server/shared/db.ts, openDedicatedClient).
 */
const POSTGRES_CONNECTIONS = 100 - 3;
const DEFAULT_POOL_MAX = 20;

describe("server/entry.sh", () => {
  it("runs the compiled file with plain node in production and the source through tsx otherwise", () => {
    const entry = read("server/entry.sh");
    expect(entry).toContain(`if [ "$NODE_ENV" = production ]; then`);
    expect(entry).toContain(`exec node "dist/platform/$name.js" "$@"`);
    expect(entry).toContain(`exec tsx "$source" "$@"`);
    expect(compiledCommand("platform")).toEqual(["node", "dist/platform/standalone.js"]);
    expect(compiledCommand("cluster")).toEqual(["node", "dist/platform/cluster.js"]);
    expect(compiledCommand("db:migrate")).toEqual(["node", "dist/platform/migrate.js"]);
  });

  it("starts the process INLAY_ROLE names for the image: next start for app, the compiled platform otherwise", () => {
    const entry = read("server/entry.sh");
    expect(entry).toContain(`if [ "$1" = role ]; then`);
    expect(entry).toContain(`if [ "$INLAY_ROLE" = app ]; then`);
    const next = /exec (node node_modules\/next\/dist\/bin\/next start .*) "\$@"/.exec(entry)?.[1]?.replace('"${PORT:-3000}"', "3000");
    expectAppCommand(next?.split(" "), "server/entry.sh role (app)");
    expect(entry).toContain(`set -- standalone ${PLATFORM_ENTRIES.standalone} --host 0.0.0.0 --port 4010 "$@"`);
  });
});

describe("glibc's malloc", () => {
  it("keeps a fixed mmap threshold in every process the README's and the image's commands start", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const value = /export MALLOC_MMAP_THRESHOLD_="\$\{MALLOC_MMAP_THRESHOLD_:-(\d+)\}"/.exec(read("server/entry.sh"))?.[1];
    expect(Number(value)).toBeGreaterThan(0);
    // npm run platform, cluster and db:migrate go through server/entry.sh; start and dev are npm's own.
    expect(scripts.start).toContain(`MALLOC_MMAP_THRESHOLD_=${value} next start`);
    expect(scripts.dev).toMatch(new RegExp(`^(\\w+=\\S+ )*MALLOC_MMAP_THRESHOLD_=${value} `));
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const instructions = dockerfile.replace(/\\\n\s*/g, " ").split("\n").filter((line) => line.trim() && !line.startsWith("#"));

  it("builds with the locked install and CI's build on Node 24 (one the suite runs on), runs the role INLAY_ROLE names as a non-root user, with a health check", () => {
    expect(instructions).toContain("ARG NODE_VERSION=24");
    expect(instructions.filter((line) => line.startsWith("FROM node:${NODE_VERSION}-"))).toHaveLength(2);
    expect(instructions).toContain("RUN npm ci --no-audit --no-fund");
    expect(instructions).toContain("RUN npm run build");
    expect(instructions).toContain("USER node");
    expect(instructions.some((line) => line.startsWith("ENV NODE_ENV=production"))).toBe(true);
    const healthcheck = instructions.find((line) => line.startsWith("HEALTHCHECK"));
    expect(healthcheck).toMatch(/\/healthz/);
    expect(healthcheck).toMatch(/INLAY_PROBE_PORT/);
    expect(healthcheck).toMatch(/INLAY_ROLE === 'app' \? e\.PORT \|\| 3000 : 4010/);
    // The role is the environment's, so one image serves every role: server/entry.sh picks the process.
    const cmd = instructions.find((line) => line.startsWith("CMD "));
    expect(JSON.parse(cmd!.slice(4))).toEqual(["sh", "server/entry.sh", "role"]);
    expect(instructions.some((line) => line.startsWith("EXPOSE ") && line.includes("3000") && line.includes("4010"))).toBe(true);
  });
});

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: unknown };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  command?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: unknown };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
}
interface IngressPath {
  path: string;
  pathType: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec: {
    replicas?: number;
    minReplicas?: number;
    maxReplicas?: number;
    strategy?: { rollingUpdate?: { maxSurge?: number } };
    scaleTargetRef?: { kind: string; name: string };
    selector?: { matchLabels: Record<string, string> } | Record<string, string>;
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    ports?: { name: string; port: number; targetPort: number | string }[];
    tls?: { hosts: string[]; secretName: string }[];
    rules?: { host: string; http: { paths: IngressPath[] } }[];
  };
}

/** Env entries that hold a secret's value inline: what only a secretKeyRef may bring. */
function inlineSecrets(env: EnvVar[] = []): string[] {
  return env.filter((entry) => SECRET_NAME.test(entry.name) && entry.valueFrom?.secretKeyRef === undefined).map((entry) => entry.name);
}

describe("deploy/kubernetes (kubectl kustomize)", () => {
  const rendered = execFileSync("kubectl", ["kustomize", path.join(root, "deploy", "kubernetes")], { encoding: "utf8" });
  const objects = parseAllDocuments(rendered).map((doc) => doc.toJS() as K8sObject);
  const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const named = (kind: string, name: string) => byKind(kind).find((object) => object.metadata.name === name)!;
  const deployment = (name: string) => named("Deployment", name);
  const portOf = (container: Container, port: number | string | undefined) =>
    typeof port === "number" ? port : container.ports?.find((each) => each.name === port)?.containerPort;
  const envOf = (container: Container, name: string) => container.env?.find((entry) => entry.name === name)?.value;
  const component = (object: K8sObject) => object.metadata.labels?.["app.kubernetes.io/component"];
  /** What a Deployment's pods read from the ConfigMaps and Secrets it names (envFrom), by name prefix. */
  const configOf = (container: Container) => {
    const maps = (container.envFrom ?? []).flatMap((source) => (source.configMapRef ? [source.configMapRef.name] : []));
    return Object.assign({}, ...maps.map((name) => named("ConfigMap", name).data)) as Record<string, string>;
  };

  it("runs the whole product: web, worker and app Deployments, web and app behind Services with autoscalers, each with a disruption budget", () => {
    const web = deployment("inlay-web");
    const worker = deployment("inlay-worker");
    const app = deployment("inlay-app");
    expect(byKind("Deployment").map((object) => object.metadata.name).sort()).toEqual(["inlay-app", "inlay-web", "inlay-worker"]);
    // The autoscaler owns the count of what it scales: a replicas field would reset it on every apply.
    expect(web.spec.replicas).toBeUndefined();
    expect(app.spec.replicas).toBeUndefined();
    expect(worker.spec.replicas).toBe(2);
    const services = byKind("Service").map((object) => object.metadata.name).sort();
    expect(services).toEqual(["inlay-app", "inlay-smtp", "inlay-web"]);
    const hpa = byKind("HorizontalPodAutoscaler");
    expect(hpa.map((object) => object.spec.scaleTargetRef).sort((a, b) => a!.name.localeCompare(b!.name))).toEqual([
      { apiVersion: "apps/v1", kind: "Deployment", name: "inlay-app" },
      { apiVersion: "apps/v1", kind: "Deployment", name: "inlay-web" },
    ]);
    for (const each of hpa) expect(each.spec.minReplicas, each.metadata.name).toBeGreaterThanOrEqual(2);
    const budgets = byKind("PodDisruptionBudget");
    for (const target of [web, worker, app]) {
      const labels = target.spec.template.metadata.labels;
      const matchLabels = (budget: K8sObject) => (budget.spec.selector as { matchLabels: Record<string, string> }).matchLabels;
      const covering = budgets.filter((budget) => Object.entries(matchLabels(budget)).every(([key, value]) => labels[key] === value));
      expect(covering, target.metadata.name).toHaveLength(1);
      // Each Service selects its own Deployment's pods only.
      for (const service of byKind("Service")) {
        const selected = Object.entries(service.spec.selector as Record<string, string>).every(([key, value]) => labels[key] === value);
        const owner = service.metadata.name === "inlay-smtp" ? "inlay-worker" : service.metadata.name;
        expect(selected, `${service.metadata.name} → ${target.metadata.name}`).toBe(owner === target.metadata.name);
      }
    }
  });

  it("probes every container: liveness on /healthz, readiness on /readyz, on a port it declares (a worker's, its INLAY_PROBE_PORT)", () => {
    for (const object of byKind("Deployment")) {
      for (const container of object.spec.template.spec.containers) {
        const where = `${object.metadata.name}/${container.name}`;
        expect(container.livenessProbe?.httpGet?.path, where).toBe("/healthz");
        expect(container.readinessProbe?.httpGet?.path, where).toBe("/readyz");
        const port = portOf(container, container.readinessProbe!.httpGet!.port);
        expect(port, where).toBeDefined();
        expect(portOf(container, container.livenessProbe!.httpGet!.port), where).toBe(port);
        if (envOf(container, "INLAY_ROLE") === "worker") expect(Number(envOf(container, "INLAY_PROBE_PORT")), where).toBe(port);
        else expect(container.command![container.command!.indexOf("--port") + 1], where).toBe(String(port));
      }
    }
  });

  it("sets resources, a preStop on pods behind a Service, a grace period that holds it and the drain, and runs as non-root", () => {
    const pods = [...byKind("Deployment"), ...byKind("Job")];
    for (const object of pods) {
      const spec = object.spec.template.spec;
      expect(spec.securityContext?.runAsNonRoot, object.metadata.name).toBe(true);
      for (const container of spec.containers) {
        // Kubernetes quantities: millicores, and memory in Mi or Gi.
        expect(String(container.resources?.requests?.cpu), container.name).toMatch(/^\d+m$/);
        expect(String(container.resources?.requests?.memory), container.name).toMatch(/^\d+(Mi|Gi)$/);
        expect(String(container.resources?.limits?.memory), container.name).toMatch(/^\d+(Mi|Gi)$/);
      }
    }
    for (const name of ["inlay-web", "inlay-app"]) expect(deployment(name).spec.template.spec.containers[0]!.lifecycle?.preStop, name).toBeDefined();
    // The grace period holds the preStop's wait and the whole drain (INLAY_DRAIN_TIMEOUT_MS, lib/env.ts: 20 s unless set), with room.
    for (const object of byKind("Deployment")) {
      const container = object.spec.template.spec.containers[0]!;
      const preStop = (container.lifecycle?.preStop as { exec?: { command: string[] } } | undefined)?.exec?.command;
      const waitSeconds = preStop?.[0] === "sleep" ? Number(preStop[1]) : 0;
      const drainSeconds = Number(envOf(container, "INLAY_DRAIN_TIMEOUT_MS") ?? configOf(container).INLAY_DRAIN_TIMEOUT_MS ?? 20_000) / 1000;
      expect(object.spec.template.spec.terminationGracePeriodSeconds, object.metadata.name).toBeGreaterThanOrEqual(waitSeconds + drainSeconds + 10);
    }
  });

  it("takes every secret from a Secret (the platform's or the app's, whole, by envFrom), never inline, and keeps none in a ConfigMap", () => {
    const secretOf = { "inlay-web": "inlay-secrets", "inlay-worker": "inlay-secrets", "inlay-app": "inlay-app-secrets" } as Record<string, string>;
    for (const object of byKind("Deployment")) {
      for (const container of object.spec.template.spec.containers) {
        const where = `${object.metadata.name}/${container.name}`;
        expect(inlineSecrets(container.env), where).toEqual([]);
        // The whole Secret: a model key added to it needs no edit of any Deployment.
        expect(container.envFrom?.filter((source) => source.secretRef).map((source) => source.secretRef!.name), where).toEqual([secretOf[object.metadata.name]]);
        expect(container.env?.some((entry) => entry.valueFrom?.secretKeyRef), where).toBe(false);
      }
    }
    // A Job is applied alone (no ConfigMap), so it names the keys it needs, from its database's Secret.
    for (const job of byKind("Job")) {
      const container = job.spec.template.spec.containers[0]!;
      expect(inlineSecrets(container.env), job.metadata.name).toEqual([]);
      const secrets = new Set(container.env!.flatMap((entry) => (entry.valueFrom?.secretKeyRef ? [entry.valueFrom.secretKeyRef.name] : [])));
      expect([...secrets], job.metadata.name).toEqual([job.metadata.name === "inlay-app-migrate" ? "inlay-app-secrets" : "inlay-secrets"]);
      expect(container.env?.some((entry) => entry.name === "DATABASE_URL"), job.metadata.name).toBe(true);
    }
    // The Secrets themselves are the operator's: no Secret object, no generator, in the manifests.
    expect(byKind("Secret")).toEqual([]);
    for (const map of byKind("ConfigMap")) expect(Object.keys(map.data ?? {}).filter((key) => SECRET_NAME.test(key))).toEqual([]);
  });

  it("the check above catches a secret given inline", () => {
    expect(inlineSecrets([{ name: "NEXTAUTH_SECRET", value: "hunter2" }, { name: "INLAY_ROLE", value: "web" }])).toEqual(["NEXTAUTH_SECRET"]);
    expect(inlineSecrets([{ name: "DATABASE_URL", valueFrom: { configMapKeyRef: {} } }])).toEqual(["DATABASE_URL"]);
  });

  it("starts the processes with package.json's production commands, the role from INLAY_ROLE, and migrates both databases in Jobs", () => {
    const start = compiledCommand("platform");
    for (const [name, role] of [
      ["inlay-web", "web"],
      ["inlay-worker", "worker"],
    ] as const) {
      const container = deployment(name).spec.template.spec.containers[0]!;
      expect(container.command!.slice(0, 2)).toEqual(start);
      expect(container.command).not.toContain("--role");
      expect(envOf(container, "INLAY_ROLE")).toBe(role);
    }
    const app = deployment("inlay-app").spec.template.spec.containers[0]!;
    expectAppCommand(app.command, "inlay-app");
    expect(envOf(app, "INLAY_ROLE")).toBe("app");
    const jobs = byKind("Job");
    expect(jobs.map((job) => job.metadata.name).sort()).toEqual(["inlay-app-migrate", "inlay-migrate"]);
    for (const each of jobs) {
      const job = each.spec.template.spec.containers[0]!;
      expect(job.command).toEqual(compiledCommand("db:migrate"));
      expect(job.envFrom).toBeUndefined();
      expect(envOf(job, "NODE_ENV")).toBe("production");
    }
  });

  it("applies in the upgrade order by label: the migrations alone, then the platform with its settings, then the rest", () => {
    const selected = (values: string[]) => objects.filter((object) => values.includes(component(object) ?? "")).map((object) => `${object.kind}/${object.metadata.name}`);
    // Each step needs nothing the later ones bring.
    expect(selected(["migrate"]).sort()).toEqual(["Job/inlay-app-migrate", "Job/inlay-migrate"]);
    const platform = selected(["platform", "web", "worker"]);
    for (const name of ["Deployment/inlay-web", "Deployment/inlay-worker", "Service/inlay-web", "HorizontalPodAutoscaler/inlay-web"]) expect(platform).toContain(name);
    expect(platform.some((name) => name.startsWith("ConfigMap/inlay-config-"))).toBe(true);
    expect(platform.filter((name) => name.includes("inlay-app"))).toEqual([]);
    for (const name of ["inlay-web", "inlay-worker"]) {
      const maps = deployment(name).spec.template.spec.containers[0]!.envFrom!.flatMap((source) => (source.configMapRef ? [source.configMapRef.name] : []));
      for (const map of maps) expect(platform, name).toContain(`ConfigMap/${map}`);
    }
    // Every object carries a component, so no step leaves one out.
    for (const object of objects) expect(component(object), `${object.kind}/${object.metadata.name}`).toBeDefined();
  });

  it("sends /api/v2 to the platform's web Service and everything else (the embed's script and iframe too) to the app's, over TLS", () => {
    const [ingress, ...others] = byKind("Ingress");
    expect(others).toEqual([]);
    expect(ingress!.spec.tls?.[0]?.secretName).toBe("inlay-tls");
    const rule = ingress!.spec.rules![0]!;
    expect(ingress!.spec.tls![0]!.hosts).toContain(rule.host);
    const route = (pathname: string) =>
      rule.http.paths
        .filter((entry) => entry.pathType === "Prefix" && (pathname === entry.path || pathname.startsWith(entry.path.endsWith("/") ? entry.path : `${entry.path}/`)))
        .sort((a, b) => b.path.length - a.path.length)[0]?.backend.service.name;
    expect(route("/api/v2/runs")).toBe("inlay-web");
    expect(route("/api/v2")).toBe("inlay-web");
    for (const pathname of ["/", "/api/chat", "/api/trpc/runs.list", "/embed/chat", "/embed.js", "/api/platform-webhooks", "/api/auth/session"]) {
      expect(route(pathname), pathname).toBe("inlay-app");
    }
    // The Services' ports the paths name exist.
    for (const entry of rule.http.paths) {
      const service = named("Service", entry.backend.service.name);
      expect(service.spec.ports!.map((port) => port.name)).toContain(entry.backend.service.port.name);
    }
    // The app reaches the platform inside the cluster, and the public URLs name the Ingress's host.
    const app = configOf(deployment("inlay-app").spec.template.spec.containers[0]!);
    expect(app.PLATFORM_BASE_URL).toBe("http://inlay-web/api/v2");
    expect(new URL(app.NEXTAUTH_URL!).host).toBe(rule.host);
    expect(app.SEED_DEMO_DATA).toBe("false");
    const platform = configOf(deployment("inlay-web").spec.template.spec.containers[0]!);
    expect(new URL(platform.INLAY_PLATFORM_PUBLIC_URL!).host).toBe(rule.host);
  });

  it("keeps every pod's PostgreSQL connections, at the autoscalers' maxima and mid-rollout, within the server's default", () => {
    let total = 0;
    for (const object of byKind("Deployment")) {
      const container = object.spec.template.spec.containers[0]!;
      const pool = Number(envOf(container, "DATABASE_POOL_MAX") ?? configOf(container).DATABASE_POOL_MAX ?? DEFAULT_POOL_MAX);
      const perPod = pool + (envOf(container, "INLAY_ROLE") === "app" ? 0 : 1);
      const hpa = byKind("HorizontalPodAutoscaler").find((each) => each.spec.scaleTargetRef!.name === object.metadata.name);
      const pods = (hpa?.spec.maxReplicas ?? object.spec.replicas!) + (object.spec.strategy?.rollingUpdate?.maxSurge ?? 0);
      total += pods * perPod;
    }
    expect(total).toBeLessThanOrEqual(POSTGRES_CONNECTIONS);
    // docs/deploy.md gives the same sum.
    expect(read("docs/deploy.md")).toContain(`${total} connections`);
  });

  it("ships a real model provider, and a production start on the simulated one says so", () => {
    expect(configOf(deployment("inlay-worker").spec.template.spec.containers[0]!).INLAY_MODEL_PROVIDER).not.toBe("sim");
    expect(modelProviderWarning({ NODE_ENV: "production", INLAY_MODEL_PROVIDER: "sim" })).toMatch(/INLAY_MODEL_PROVIDER is sim/);
    expect(modelProviderWarning({ NODE_ENV: "production", INLAY_MODEL_PROVIDER: "openai" })).toBeUndefined();
    expect(modelProviderWarning({ NODE_ENV: "development", INLAY_MODEL_PROVIDER: "sim" })).toBeUndefined();
  });

  it("receives agent inboxes' mail on the workers, through a Service on port 25", () => {
    const worker = deployment("inlay-worker").spec.template.spec.containers[0]!;
    const smtp = named("Service", "inlay-smtp").spec.ports!.find((port) => port.port === 25)!;
    expect(portOf(worker, smtp.targetPort)).toBe(Number(envOf(worker, "INLAY_SMTP_PORT")));
    expect(envOf(worker, "INLAY_SMTP_HOST")).toBe("0.0.0.0");
    expect(configOf(worker).INLAY_EMAIL_DOMAIN).toMatch(/\./);
  });
});

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  deploy?: { resources?: { limits?: { memory?: string; cpus?: string } } };
}

describe("deploy/compose.yaml", () => {
  const compose = parse(read("deploy/compose.yaml"), { merge: true }) as { services: Record<string, ComposeService> };
  const services = compose.services;
  const ours = Object.entries(services).filter(([, service]) => service.image === "inlay:latest");
  const role = (service: ComposeService) => service.environment?.INLAY_ROLE;
  const migrations = ["migrate", "migrate-app"];
  const platform = ours.filter(([name, service]) => !migrations.includes(name) && role(service) !== "app");
  const apps = ours.filter(([, service]) => role(service) === "app");
  const database = (service: ComposeService) => /@postgres:5432\/(\w+)$/.exec(service.environment?.DATABASE_URL ?? "")?.[1];

  it("runs PostgreSQL, Redis, nginx, the migrations once per database, 2 web processes, 2 workers and 2 app processes", () => {
    expect(Object.keys(services).sort()).toEqual(["app-1", "app-2", "migrate", "migrate-app", "nginx", "postgres", "redis", "web-1", "web-2", "worker-1", "worker-2"]);
    expect(platform.filter(([, service]) => role(service) === "web").map(([name]) => name)).toEqual(["web-1", "web-2"]);
    expect(platform.filter(([, service]) => role(service) === "worker").map(([name]) => name)).toEqual(["worker-1", "worker-2"]);
    expect(apps.map(([name]) => name)).toEqual(["app-1", "app-2"]);
    const nginx = read("deploy/nginx.conf");
    for (const name of ["web-1", "web-2"]) expect(nginx).toContain(`server ${name}:4010`);
    // Every image service is built here, so compose never pulls an "inlay" image from a registry.
    for (const [name, service] of ours) expect(service.build, name).toBeDefined();
  });

  it("migrates each database in a one-shot service that its processes wait for; the app on its own database, through nginx to the platform", () => {
    for (const name of migrations) {
      expect(services[name]!.restart, name).toBe("no");
      expect(services[name]!.command, name).toEqual(compiledCommand("db:migrate"));
    }
    expect(database(services.migrate!)).toBe("inlay");
    expect(database(services["migrate-app"]!)).toBe("inlay_app");
    expect(read("deploy/postgres-init/app-database.sql")).toContain("CREATE DATABASE inlay_app OWNER inlay;");
    for (const [name, service] of platform) {
      expect(service.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(service.command!.slice(0, 2), name).toEqual(compiledCommand("platform"));
      expect(service.command, name).not.toContain("--role");
      expect(database(service), name).toBe("inlay");
    }
    for (const [name, service] of apps) {
      expect(service.depends_on?.["migrate-app"]?.condition, name).toBe("service_completed_successfully");
      expectAppCommand(service.command, name);
      expect(database(service), name).toBe("inlay_app");
      expect(service.environment?.PLATFORM_BASE_URL, name).toBe("http://nginx/api/v2");
      expect(service.environment?.SEED_DEMO_DATA, name).toBe("false");
    }
  });

  it("health-checks every long-running service (ours on /healthz at their probe port) and limits its resources", () => {
    for (const [name, service] of Object.entries(services)) {
      expect(String(service.deploy?.resources?.limits?.memory), name).toMatch(/^\d+[MG]$/);
      if (migrations.includes(name)) continue;
      expect(service.healthcheck?.test?.length, name).toBeGreaterThan(0);
    }
    for (const [name, service] of [...platform, ...apps]) {
      const port = role(service) === "worker" ? service.environment!.INLAY_PROBE_PORT : service.command![service.command!.indexOf("--port") + 1];
      expect(port, name).toMatch(/^\d+$/);
      expect(service.healthcheck!.test!.join(" "), name).toContain(`http://127.0.0.1:${port}/healthz`);
    }
  });

  it("asks for the model provider, and takes every secret from the environment (deploy/.env), none written in the file", () => {
    for (const [name, service] of platform) expect(service.environment?.INLAY_MODEL_PROVIDER, name).toMatch(/^\$\{INLAY_MODEL_PROVIDER:\?/);
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (!SECRET_NAME.test(key) || key === "REDIS_URL") continue; // Redis here has no password
        expect(String(value), `${name} ${key}`).toMatch(/\$\{[A-Z_]+(:[?-][^}]*)?\}/);
      }
    }
    const example = read("deploy/.env.example");
    for (const line of example.split("\n").filter((each) => SECRET_NAME.test(each.split("=")[0] ?? "") && !each.startsWith("#"))) {
      expect(line, "deploy/.env.example ships no secret value").toMatch(/=$/);
    }
    // Every variable the file reads is in the example (POSTGRES_PASSWORD, the model keys, the app's platform key…).
    const used = new Set([...read("deploy/compose.yaml").matchAll(/\$\{([A-Z_]+)/g)].map((match) => match[1]!));
    const listed = new Set(example.split("\n").filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split("=")[0]!));
    expect([...used].filter((name) => !listed.has(name))).toEqual([]);
  });
});
