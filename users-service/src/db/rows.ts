import type { Plan, Role, Scope } from '@community/contracts';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  displayName: string;
  avatar: string | null;
  bio: string;
  role: Role;
  plan: Plan;
  hourlyLimit: number | null;
  dailyLimit: number | null;
  postsCount: number;
  commentsCount: number;
  likesReceived: number;
  reputation: number;
  createdAt: Date;
  badges: { id: number; name: string; icon: string }[];
}

export interface ApiKeyRow {
  id: number;
  userId: number;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}
