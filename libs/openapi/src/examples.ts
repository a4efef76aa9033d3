import type { z } from 'zod';
import type { EventData, Pagination, PublicEvent } from '@community/contracts';
import { OAUTH_REQUEST_EXAMPLES, OAUTH_RESOURCE_EXAMPLES } from './oauth-examples';
import type { REQUESTS, RequestName, RESOURCES, ResourceName } from './schemas';

export { OAUTH_ERROR_EXAMPLES } from './oauth-examples';

// Typed by the contract schemas, so an example that drifts from them does not compile; the openapi
// tests also parse every one with its schema.

const at = '2026-02-07T10:15:00Z';
const later = '2026-02-07T11:02:00Z';
const author = { id: 7, username: 'ada', display_name: 'Ada Lovelace' };
const avatar = 'https://images.example.org/ada.png';

const post = {
  id: 42,
  title: 'Hello, community',
  slug: 'hello-community',
  content: 'First post: what are you all building?',
  author,
  category: { id: 3, name: 'General' },
  views: 128,
  likes: 12,
  replies: 4,
  created_at: at,
  updated_at: later,
};

const me = {
  id: 7,
  username: 'ada',
  display_name: 'Ada Lovelace',
  avatar,
  bio: 'Writes programs for engines that do not exist yet.',
  reputation: 134,
  badges: [{ id: 1, name: 'First Post', icon: '📝' }],
  stats: { posts: 5, comments: 12, likes_received: 12 },
  joined_at: at,
  email: 'ada@example.org',
  role: 'member' as const,
  plan: 'free' as const,
};
const { email: _email, role: _role, plan: _plan, ...user } = me;

const apiKey = {
  id: 3,
  name: 'CI bot',
  prefix: 'cpk_Xy12ab9Q',
  scopes: ['read' as const],
  created_at: at,
  expires_at: null,
};

const webhook = {
  id: 5,
  url: 'https://hooks.example.org/community',
  events: ['post.created' as const, 'comment.created' as const],
  description: 'Team chat notifier',
  enabled: true,
  disabled_reason: null,
  created_at: at,
  updated_at: at,
};
const comment = {
  id: 314,
  post_id: 42,
  parent_id: null,
  content: 'A compiler for a toy language!',
  author: { id: 9, username: 'grace', display_name: 'Grace Hopper', avatar },
  likes: 2,
  created_at: later,
  updated_at: later,
};
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Xk/3cPZ5tM=';

export const RESOURCE_EXAMPLES: { [K in ResourceName]: z.output<(typeof RESOURCES)[K]> } = {
  Post: post,
  PostDetail: {
    ...post,
    author: { ...author, avatar },
    category: { id: 3, name: 'General', slug: 'general' },
    tags: ['intro', 'meta'],
    is_pinned: false,
    is_locked: false,
  },
  LikeResult: { post_id: 42, liked: true, likes: 13 },
  Comment: comment,
  CommentEntry: { ...comment, highlight: { content: 'A <mark>compiler</mark> for a toy language!' } },
  CommentLikeResult: { comment_id: 314, liked: true, likes: 3 },
  Tag: { name: 'intro', post_count: 42 },
  Category: {
    id: 3,
    name: 'General',
    slug: 'general',
    description: 'Anything that fits nowhere else.',
    post_count: 57,
    created_at: at,
    updated_at: at,
  },
  User: user,
  Me: me,
  ApiKey: { ...apiKey, last_used_at: later },
  CreatedApiKey: { ...apiKey, key: 'cpk_Xy12ab9QkV0cP3s8RwLq5mZ2tN7uY4bH6jD1fG0e' },
  Webhook: webhook,
  CreatedWebhook: { ...webhook, secret },
  RotatedSecret: { id: 5, secret, previous_secret_expires_at: '2026-02-08T10:15:00Z' },
  Delivery: {
    id: 901,
    message_id: 'evt_01JKX3M5W8Q2T7Y9Z4B6C8D0EF',
    event: 'post.created',
    status: 'succeeded',
    attempts: 1,
    response_status: 204,
    duration_ms: 87,
    next_attempt_at: null,
    created_at: later,
  },
  Deleted: { id: 42, deleted: true },
  ApiInfo: { name: 'Community Platform API', version: '1.0.0' },
  Flag: {
    id: 17,
    target_type: 'post',
    target_id: 42,
    reason: 'spam',
    note: 'The same link in five categories',
    status: 'open',
    created_at: later,
  },
  Suspension: {
    user_id: 57,
    until: '2026-12-01T00:00:00Z',
    reason: 'spam in several categories',
    created_at: later,
  },
  LiftedSuspension: { user_id: 57, lifted: true },
  EventLogEntry: {
    id: 'msg_01JKX3M5W8Q2T7Y9Z4B6C8D0EF',
    event: 'post.created',
    timestamp: later,
    data: { id: 42, title: 'Hello, community', author_id: 7 },
  },
  PingResult: { status: 'succeeded', response_status: 204, duration_ms: 87 },
  ReplayResult: { queued: 312 },
  ModerationAction: {
    id: 311,
    actor_id: 2,
    action: 'resolve_flags',
    target_type: 'post',
    target_id: 42,
    reason: 'Advertising',
    created_at: later,
  },
  Notification: {
    id: 5120,
    kind: 'reply',
    read: false,
    created_at: later,
    actor: { id: 9, username: 'bob', display_name: 'Bob' },
    subject: {
      type: 'comment',
      id: 318,
      post_id: 42,
      title: 'Hello, community',
      excerpt: 'Welcome! The FAQ answers most of that.',
    },
  },
  UnreadCount: { unread: 3 },
  Marked: { marked: 2 },
  Erasure: { status: 'erasing' },
  AccountExport: {
    exported_at: later,
    profile: me,
    keys: [{ ...apiKey, last_used_at: later }],
    oauth_apps: [],
    oauth_grants: [],
    notifications: [],
    posts: [
      {
        id: 42,
        title: 'Hello, community',
        slug: 'hello-community',
        content: 'First post: what are you all building?',
        category_id: 3,
        tags: ['intro', 'meta'],
        is_hidden: false,
        views: 120,
        likes: 13,
        replies: 4,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      },
    ],
    comments: [],
    likes: [{ target_type: 'post', target_id: 40, created_at: later }],
    flags: [],
    webhooks: [webhook],
  },
  ...OAUTH_RESOURCE_EXAMPLES,
};

export const PAGINATION_EXAMPLE: Pagination = {
  current_page: 1,
  total_pages: 3,
  total_items: 57,
  per_page: 20,
};

export const REQUEST_EXAMPLES: { [K in RequestName]: z.input<(typeof REQUESTS)[K]> } = {
  CreatePostRequest: {
    title: 'Hello, community',
    content: 'First post: what are you all building?',
    category_id: 3,
    tags: ['intro', 'meta'],
  },
  UpdatePostRequest: { title: 'Hello again, community', tags: ['intro'] },
  CreateCommentRequest: { content: 'A compiler for a toy language!', parent_id: null },
  UpdateCommentRequest: { content: 'A compiler for a small language!' },
  CreateCategoryRequest: { name: 'General', description: 'Anything that fits nowhere else.' },
  UpdateCategoryRequest: { description: 'Everything else.' },
  CreateFlagRequest: { reason: 'spam', note: 'The same link in five categories' },
  DecideFlagRequest: { status: 'resolved', action: 'delete', reason: 'Advertising' },
  SuspensionRequest: { until: '2026-12-01T00:00:00Z', reason: 'spam in several categories' },
  ReplayRequest: { since: '2026-02-01T00:00:00Z', until: '2026-02-02T00:00:00Z', events: ['post.created'] },
  MarkReadRequest: { ids: [5120, 5118] },
  RegisterRequest: {
    username: 'ada',
    email: 'ada@example.org',
    password: 'correct horse battery staple',
    display_name: 'Ada Lovelace',
  },
  UpdateMeRequest: { bio: 'Writes programs for engines that do not exist yet.', avatar },
  EraseMeRequest: { password: 'correct horse battery staple' },
  SetPlanRequest: { plan: 'enterprise', hourly_limit: 20000, daily_limit: 200000 },
  SetRoleRequest: { role: 'moderator' },
  CreateApiKeyRequest: { name: 'CI bot', scopes: ['read'], expires_at: '2027-01-31T00:00:00Z' },
  CreateWebhookRequest: {
    url: 'https://hooks.example.org/community',
    events: ['post.created', 'comment.created'],
    description: 'Team chat notifier',
  },
  UpdateWebhookRequest: { enabled: true },
  ...OAUTH_REQUEST_EXAMPLES,
};

export const EVENT_EXAMPLES: { [E in PublicEvent]: { event: E; timestamp: string; data: EventData<E> } } = {
  'post.created': {
    event: 'post.created',
    timestamp: at,
    data: { id: 42, title: 'Hello, community', author_id: 7 },
  },
  'post.updated': {
    event: 'post.updated',
    timestamp: later,
    data: { id: 42, title: 'Hello again, community', author_id: 7, changed: ['title', 'tags'] },
  },
  'post.deleted': { event: 'post.deleted', timestamp: later, data: { id: 42, author_id: 7 } },
  'comment.created': {
    event: 'comment.created',
    timestamp: later,
    data: { id: 314, post_id: 42, author_id: 9, parent_id: null },
  },
  'user.registered': {
    event: 'user.registered',
    timestamp: at,
    data: { id: 7, username: 'ada', display_name: 'Ada Lovelace' },
  },
  'user.deleted': { event: 'user.deleted', timestamp: later, data: { id: 7 } },
};
