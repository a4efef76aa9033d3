import { rankedCandidates } from '../../src/db/post-search.repository';
import { alice, createCategory } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

// Relevance ranks the newest matches of `q` (DESIGN.md §18): a word in a few percent of posts has
// PostgreSQL walk many times as many posts as it keeps. The walk reads posts_live_search_idx alone
// (migration 0011), not a table row for each post it tests.

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('search_plan');
  const category = (await createCategory(h, 'Woods')).id;
  await h.sql`
    insert into posts (title, slug, content, author_id, category_id, created_at, updated_at)
    select 'walk ' || i, 'walk-' || i,
           case when i % 20 = 0 then 'a path through the forest' else 'a path along the river' end,
           ${alice.userId}, ${category}, now() - i * interval '1 minute', now()
    from generate_series(1, 2000) i`;
  // As a settled table is: vacuumed, so its pages are known to hold only rows every reader sees.
  await h.sql`vacuum analyze posts`;
});
afterAll(() => h.stop());

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

it('walks the newest matches of a search on the index alone, fetching no table row', async () => {
  const plan = await h.sql.begin(async (tx) => {
    // Between the indexes that read in date order: a small table could be sorted whole instead.
    await tx`set local enable_bitmapscan = off`;
    await tx`set local enable_seqscan = off`;
    const [row] = await tx<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
      explain (analyze, format json) ${rankedCandidates(tx, {}, 'forest')}`;
    return row!['QUERY PLAN'][0].Plan;
  });
  const scan = nodes(plan).find((node) => node['Node Type'].includes('Scan'));
  expect(scan).toMatchObject({
    'Node Type': 'Index Only Scan',
    'Index Name': 'posts_live_search_idx',
    'Heap Fetches': 0,
  });
});
