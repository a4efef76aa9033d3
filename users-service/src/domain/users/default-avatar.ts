/**
 * The picture of every user who has not set an avatar (a grey silhouette, 64×64), served at
 * /avatars/{id}.svg. One picture for all: answering it needs no lookup, so the keyless route tells
 * nobody which accounts exist and costs no database work.
 */
export const DEFAULT_AVATAR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">' +
  '<rect width="64" height="64" fill="#cbd5e1"/>' +
  '<circle cx="32" cy="25" r="12" fill="#f8fafc"/>' +
  '<path d="M12 58c2-12 11-18 20-18s18 6 20 18z" fill="#f8fafc"/>' +
  '</svg>\n';
