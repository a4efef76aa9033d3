-- The default avatar used to be replicated as a data: URI; it is now null, and each answer builds
-- the URL of the SVG users-service serves (<public base>/avatars/<id>.svg).
update authors set avatar = null where avatar like 'data:%';
