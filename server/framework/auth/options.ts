// next-auth configuration: email and password (credentials) with JWT sessions, plus GitHub and Google
// when their env vars are set. OAuth users are mapped to Inlay users by verified email
// (server/framework/auth/oauth.ts). The active tenant is not in the token: it is the `inlay_tenant` cookie,
// checked against the database on every tRPC call (server/framework/api/trpc.ts).
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { env, shareNextAuthUrl } from "@/lib/env";
import { getDb } from "@/server/shared/db";
import { publicOrigin } from "@/server/shared/public-origin";
import { verifyCredentials } from "./credentials";
import { oauthSignUpDecision } from "@/server/framework/tenancy/sign-ups";
import { provisionOAuthUser } from "./oauth";
import { signIns } from "@/server/framework/observability/metrics";

// next-auth's redirects (sign-out, sign-in callbacks) and OAuth callback URLs follow the app's one
// public origin, on whatever port it is served, not next-auth's own default of localhost:3000.
shareNextAuthUrl(publicOrigin());

const oauthProviders = [
  ...(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET
    ? [GitHubProvider({ clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET })]
    : []),
  ...(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET
    ? [GoogleProvider({ clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET })]
    : []),
];

/** The OAuth providers offered on the sign-in and invite pages. */
export const enabledOAuthProviders = oauthProviders.map((provider) => ({ id: provider.id, name: provider.name }));

export const authOptions: NextAuthOptions = {
  secret: env.NEXTAUTH_SECRET,
  session: { strategy: "jwt", maxAge: 30 * 24 * 60 * 60 },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials) {
        const user =
          credentials?.email && credentials.password ? await verifyCredentials((await getDb()).prisma, credentials.email, credentials.password) : null;
        if (!user) signIns.inc({ provider: "credentials", outcome: "failed" });
        return user ? { id: user.id, email: user.email, name: user.name, isOwner: user.isOwner } : null;
      },
    }),
    ...oauthProviders,
  ],
  // Every successful sign-in, whatever the provider (the failures are counted where they are decided).
  events: {
    signIn({ account }) {
      signIns.inc({ provider: account?.provider ?? "credentials", outcome: "ok" });
    },
  },
  callbacks: {
    async signIn({ account, user, profile }) {
      if (account?.type !== "oauth") return true;
      // Accounts are matched by email, so only an address the provider has verified may sign in.
      const unverified = account.provider === "google" && (profile as { email_verified?: boolean } | undefined)?.email_verified !== true;
      if (!user.email || unverified) {
        signIns.inc({ provider: account.provider, outcome: "failed" });
        return false;
      }
      // A first sign-in is a sign-up: the owner's setting says whether it may, or waits for approval.
      const { prisma } = await getDb();
      const decision = await oauthSignUpDecision(prisma, { email: user.email, name: user.name ?? null });
      if (decision === "allow") return true;
      signIns.inc({ provider: account.provider, outcome: "refused" });
      return `${publicOrigin()}/signup?status=${decision === "held" ? "pending" : "closed"}`;
    },
    async jwt({ token, user, account }) {
      if (account?.type === "oauth" && user?.email) {
        const { prisma } = await getDb();
        const inlayUser = await provisionOAuthUser(prisma, { email: user.email, name: user.name ?? null });
        token.uid = inlayUser.id;
        token.isOwner = inlayUser.isOwner;
      } else if (user) {
        token.uid = user.id;
        token.isOwner = user.isOwner;
      }
      return token;
    },
    session({ session, token }) {
      if (session.user && token.uid) {
        session.user.id = token.uid;
        session.user.isOwner = token.isOwner ?? false;
      }
      return session;
    },
  },
};
