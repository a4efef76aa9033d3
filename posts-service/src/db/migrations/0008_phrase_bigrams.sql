-- Phrases found by index (DESIGN.md §11). A phrase matches where its words stand next to each other,
-- and the GIN index of `search` knows which posts hold the words but not where: "runs database" had
-- PostgreSQL read and check 10,520 posts holding both words to find the 165 with the phrase (27 ms
-- of a 47 ms search). Each row now also keeps the pairs of words that stand next to each other in
-- its search text ('run databas'), indexed, so a phrase reads only the rows holding all its pairs;
-- `@@` still decides, so the pairs only narrow what it reads, never what matches.
--
-- The pairs are read from the same tsvector as `search` (its positions, stop words left out as
-- gaps), so a pair is in the list exactly when the phrase operator `<->` can see it.
create function search_bigrams(v tsvector) returns text[]
  language sql immutable parallel safe
  return array(
    select distinct a.lexeme || ' ' || b.lexeme
    from (select lexeme, unnest(positions) as pos from unnest(v)) a
    join (select lexeme, unnest(positions) as pos from unnest(v)) b on b.pos = a.pos + 1);

-- The pairs every match of `q` must hold: each `'a' <-> 'b'` of its phrases. None (so no narrowing)
-- when `q` has `or` or an exclusion, where a match need not hold them, and none for a word whose
-- text form is escaped (a quote or a backslash in it), which would not compare equal.
create function tsquery_bigrams(q tsquery) returns text[]
  language sql immutable parallel safe
  return case when q::text ~ '[|!]' then '{}'::text[] else array(
    select distinct t.lexeme || ' ' || t.next
    from (
      select m[1] as lexeme, m[2] is not null as joined, lead(m[1]) over (order by n) as next
      from regexp_matches(q::text, '''((?:[^'']|'''')*)''( <-> (?=''))?', 'g') with ordinality as r(m, n)
    ) t
    where t.joined and t.lexeme !~ '[''\\]' and t.next !~ '[''\\]') end;

-- A row whole up to 4 KB: PostgreSQL compresses a row's largest values once it passes 2 KB, and the
-- pairs take many posts past it; ranking would then decompress `search` for each row it ranks.
alter table posts set (toast_tuple_target = 4080);
-- As `search` (0004) is made: title, tags, content, in that order.
alter table posts add column bigrams text[] generated always as (search_bigrams(
  setweight(to_tsvector('search_english', title), 'A') ||
  setweight(to_tsvector('search_english', tags_text(tags)), 'B') ||
  setweight(to_tsvector('search_english', content), 'C')
)) stored;
create index posts_bigrams_idx on posts using gin (bigrams) where deleted_at is null;

alter table comments add column bigrams text[] generated always as (
  search_bigrams(to_tsvector('search_english', content))
) stored;
create index comments_bigrams_idx on comments using gin (bigrams) where deleted_at is null;
