// The deployment files (Dockerfile, deploy/compose.yaml, deploy/kubernetes/), rendered and read as an
// orchestrator would: every long-running container probed (/healthz alive, /readyz ready), resources
// set, secrets only by reference, the start commands those of package.json, the migrations a one-shot
// step. No container daemon here: the Dockerfile is read, not built (docs/deploy.md).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
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
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const instructions = dockerfile.replace(/\\\n\s*/g, " ").split("\n").filter((line) => line.trim() && !line.startsWith("#"));

  it("builds with CI's commands on Node 24 (one the suite runs on) and runs the compiled platform as a non-root user, with a health check", () => {
    expect(instructions).toContain("ARG NODE_VERSION=24");
    expect(instructions.filter((line) => line.startsWith("FROM node:${NODE_VERSION}-"))).toHaveLength(2);
    expect(instructions).toContain("RUN npm install --no-audit --no-fund");
    expect(instructions).toContain("RUN npm run build");
    expect(instructions).toContain("USER node");
    expect(instructions.some((line) => line.startsWith("ENV NODE_ENV=production"))).toBe(true);
    const healthcheck = instructions.find((line) => line.startsWith("HEALTHCHECK"));
    expect(healthcheck).toMatch(/\/healthz/);
    expect(healthcheck).toMatch(/INLAY_PROBE_PORT/);
    const cmd = instructions.find((line) => line.startsWith("CMD "));
    expect(JSON.parse(cmd!.slice(4)).slice(0, 2)).toEqual(compiledCommand("platform"));
    // The role is the environment's, so one image serves every role.
    expect(cmd).not.toContain("--role");
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
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec: {
    replicas?: number;
    minReplicas?: number;
    scaleTargetRef?: { kind: string; name: string };
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
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
  const deployment = (name: string) => byKind("Deployment").find((object) => object.metadata.name === name)!;
  const portOf = (container: Container, port: number | string | undefined) =>
    typeof port === "number" ? port : container.ports?.find((each) => each.name === port)?.containerPort;

  it("has a web Deployment (2 replicas, a Service, an HPA) and a worker Deployment (2 replicas), each with a disruption budget", () => {
    const web = deployment("inlay-web");
    const worker = deployment("inlay-worker");
    expect(web.spec.replicas).toBe(2);
    expect(worker.spec.replicas).toBe(2);
    const service = byKind("Service");
    expect(service.map((object) => object.metadata.name)).toEqual(["inlay-web"]);
    const hpa = byKind("HorizontalPodAutoscaler");
    expect(hpa).toHaveLength(1);
    expect(hpa[0]!.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name: "inlay-web" });
    expect(hpa[0]!.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const budgets = byKind("PodDisruptionBudget");
    for (const target of [web, worker]) {
      const labels = target.spec.template.metadata.labels;
      const covering = budgets.filter((budget) => Object.entries(budget.spec.selector!.matchLabels).every(([key, value]) => labels[key] === value));
      expect(covering, target.metadata.name).toHaveLength(1);
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
        const probePort = container.env?.find((entry) => entry.name === "INLAY_PROBE_PORT")?.value;
        const role = container.env?.find((entry) => entry.name === "INLAY_ROLE")?.value;
        if (role === "worker") expect(Number(probePort), where).toBe(port);
        else expect(container.command, where).toContain(String(port));
      }
    }
  });

  it("sets resources, a drain period, a preStop on web pods, and runs as non-root", () => {
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
    for (const object of byKind("Deployment")) expect(object.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(deployment("inlay-web").spec.template.spec.containers[0]!.lifecycle?.preStop).toBeDefined();
  });

  it("takes secrets only from the Secret, never inline, and keeps none in the ConfigMap", () => {
    for (const object of [...byKind("Deployment"), ...byKind("Job")]) {
      for (const container of object.spec.template.spec.containers) {
        expect(inlineSecrets(container.env), `${object.metadata.name}/${container.name}`).toEqual([]);
        for (const entry of container.env ?? []) {
          if (entry.valueFrom?.secretKeyRef) expect(entry.valueFrom.secretKeyRef.name).toBe("inlay-secrets");
        }
        expect((container.envFrom ?? []).every((source) => source.configMapRef !== undefined)).toBe(true);
        expect(container.env?.some((entry) => entry.name === "DATABASE_URL")).toBe(true);
      }
    }
    // The Secret itself is the operator's: no Secret object, no generator, in the manifests.
    expect(byKind("Secret")).toEqual([]);
    for (const map of byKind("ConfigMap")) expect(Object.keys(map.data ?? {}).filter((key) => SECRET_NAME.test(key))).toEqual([]);
  });

  it("the check above catches a secret given inline", () => {
    expect(inlineSecrets([{ name: "NEXTAUTH_SECRET", value: "hunter2" }, { name: "INLAY_ROLE", value: "web" }])).toEqual(["NEXTAUTH_SECRET"]);
    expect(inlineSecrets([{ name: "DATABASE_URL", valueFrom: { configMapKeyRef: {} } }])).toEqual(["DATABASE_URL"]);
  });

  it("starts the processes with package.json's production commands, the role from INLAY_ROLE, and migrates in a Job", () => {
    const start = compiledCommand("platform");
    for (const [name, role] of [
      ["inlay-web", "web"],
      ["inlay-worker", "worker"],
    ] as const) {
      const container = deployment(name).spec.template.spec.containers[0]!;
      expect(container.command!.slice(0, 2)).toEqual(start);
      expect(container.command).not.toContain("--role");
      expect(container.env?.find((entry) => entry.name === "INLAY_ROLE")?.value).toBe(role);
    }
    const jobs = byKind("Job");
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!.spec.template.spec.containers[0]!;
    expect(job.command).toEqual(compiledCommand("db:migrate"));
    // Applied alone before the rest (docs/deploy.md): selectable by its label, and needing no other object.
    const migrateLabelled = objects.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "migrate");
    expect(migrateLabelled.map((object) => object.kind)).toEqual(["Job"]);
    expect(job.envFrom).toBeUndefined();
    expect(job.env?.find((entry) => entry.name === "NODE_ENV")?.value).toBe("production");
  });
});

interface ComposeService {
  image?: string;
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
  const platform = Object.entries(services).filter(([, service]) => service.image === "inlay:latest");
  const role = (service: ComposeService) => service.environment?.INLAY_ROLE;

  it("runs PostgreSQL, Redis, nginx, the migrations once, 2 web processes and 2 workers", () => {
    expect(Object.keys(services).sort()).toEqual(["migrate", "nginx", "postgres", "redis", "web-1", "web-2", "worker-1", "worker-2"]);
    expect(platform.filter(([, service]) => role(service) === "web").map(([name]) => name)).toEqual(["web-1", "web-2"]);
    expect(platform.filter(([, service]) => role(service) === "worker").map(([name]) => name)).toEqual(["worker-1", "worker-2"]);
    const nginx = read("deploy/nginx.conf");
    for (const name of ["web-1", "web-2"]) expect(nginx).toContain(`server ${name}:4010`);
  });

  it("migrates in a one-shot service that every platform process waits for", () => {
    expect(services.migrate!.restart).toBe("no");
    expect(services.migrate!.command).toEqual(compiledCommand("db:migrate"));
    for (const [name, service] of platform) {
      if (name === "migrate") continue;
      expect(service.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(service.command!.slice(0, 2), name).toEqual(compiledCommand("platform"));
      expect(service.command, name).not.toContain("--role");
    }
  });

  it("health-checks every long-running service (platform processes on /healthz at their probe port) and limits its resources", () => {
    for (const [name, service] of Object.entries(services)) {
      expect(String(service.deploy?.resources?.limits?.memory), name).toMatch(/^\d+[MG]$/);
      if (name === "migrate") continue;
      expect(service.healthcheck?.test?.length, name).toBeGreaterThan(0);
    }
    for (const [name, service] of platform) {
      if (name === "migrate") continue;
      const port = role(service) === "worker" ? service.environment!.INLAY_PROBE_PORT : service.command![service.command!.indexOf("--port") + 1];
      expect(port, name).toMatch(/^\d+$/);
      expect(service.healthcheck!.test!.join(" "), name).toContain(`http://127.0.0.1:${port}/healthz`);
    }
  });

  it("takes every secret from the environment (deploy/.env), none written in the file", () => {
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
  });
});
