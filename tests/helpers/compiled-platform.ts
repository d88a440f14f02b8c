// The run's compiled platform (tests/setup/compiled-platform.ts): what node runs to start one of its
// processes or its cluster CLI, from the repository's root.
import path from "node:path";
import { inject } from "vitest";

/** `node <this> --role web …`: the compiled standalone platform. */
export const compiledPlatformEntry = (): string[] => [path.join(inject("compiledPlatform"), "standalone.js")];

/** `node <this> --web 1 …`: the compiled cluster CLI, which starts the compiled platform beside it. */
export const compiledClusterEntry = (): string[] => [path.join(inject("compiledPlatform"), "cluster.js")];
