// next-auth configuration: email and password (credentials) with JWT sessions. OAuth providers and
// sign-up arrive with the framework issue.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "@/lib/env";
import { getDb } from "@/server/db";
import { verifyCredentials } from "./credentials";

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
        if (!credentials?.email || !credentials.password) return null;
        const { prisma } = await getDb();
        const user = await verifyCredentials(prisma, credentials.email, credentials.password);
        return user ? { id: user.id, email: user.email, name: user.name, isOwner: user.isOwner } : null;
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
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
