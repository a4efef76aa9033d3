/** Rows as the repositories return them (camelCase, postgres.js `camel` transform). */
export interface PostRow {
  id: number;
  title: string;
  slug: string;
  content: string;
  authorId: number;
  categoryId: number;
  tags: string[];
  views: number;
  likes: number;
  replies: number;
  isPinned: boolean;
  isLocked: boolean;
  isHidden: boolean;
  createdAt: Date;
  updatedAt: Date;
  authorUsername: string | null;
  authorDisplayName: string | null;
  authorAvatar: string | null;
  categoryName: string | null;
  categorySlug: string | null;
}

export interface CommentRow {
  id: number;
  postId: number;
  parentId: number | null;
  authorId: number;
  content: string;
  likes: number;
  isHidden: boolean;
  createdAt: Date;
  updatedAt: Date;
  authorUsername: string | null;
  authorDisplayName: string | null;
  authorAvatar: string | null;
}

export interface CategoryRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  postCount: number;
  createdAt: Date;
  updatedAt: Date;
}
