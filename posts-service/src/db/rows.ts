/** Rows as the repositories return them (camelCase, postgres.js `camel` transform). */

/** The author of a post or comment, with what every read joins in from the `authors` replica. */
export interface AuthorColumns {
  authorId: number;
  authorUsername: string | null;
  authorDisplayName: string | null;
  authorAvatar: string | null;
}

export interface PostRow extends AuthorColumns {
  id: number;
  title: string;
  slug: string;
  content: string;
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
  categoryName: string | null;
  categorySlug: string | null;
}

export interface CommentRow extends AuthorColumns {
  id: number;
  postId: number;
  parentId: number | null;
  content: string;
  likes: number;
  isHidden: boolean;
  createdAt: Date;
  updatedAt: Date;
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
