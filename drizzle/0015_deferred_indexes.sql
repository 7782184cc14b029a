-- The secondary indexes and foreign keys a bulk load drops before its first batch and recreates at its
-- end (docs/INGEST.md "Bulk loads", shared/ingest/deferred-indexes.ts). A row holds the catalog's exact
-- definition (pg_get_indexdef, pg_get_constraintdef); it is written in the transaction that drops the
-- object and deleted in the one that recreates it, so a load that dies midway leaves behind what to
-- restore. Every ingest run, `npm run rollups:rebuild` and `npm run db:migrate` restore it first.
CREATE TABLE "deferred_indexes" (
	"name" text PRIMARY KEY NOT NULL,
	"table_name" text NOT NULL,
	"kind" text NOT NULL,
	"definition" text NOT NULL,
	CONSTRAINT "deferred_indexes_kind_check" CHECK ("kind" IN ('index', 'foreign key'))
);
