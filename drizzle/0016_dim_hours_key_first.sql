-- dim_hours' primary key leads with `key` in the "C" collation (shared/ingest/rebuild.ts): a bulk
-- load builds it in one sort over millions of rows, and PostgreSQL 15 abbreviates the leading column
-- of such a sort only under "C" (the database's C.UTF-8 is a libc locale: no abbreviated keys). With
-- `kind` first (five values) every comparison went on to `key`: on the 4.68M rows of the first
-- million bench lines the build took 21.0 s on one core, 11.7 s now. Both collations order by code
-- point, so no order and no equality changes; lookups give `kind` and `key` together, as before.
ALTER TABLE "dim_hours" DROP CONSTRAINT "dim_hours_kind_key_country_language_hour_pk";--> statement-breakpoint
ALTER TABLE "dim_hours" ALTER COLUMN "key" TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "dim_hours" ADD CONSTRAINT "dim_hours_pk" PRIMARY KEY ("key", "kind", "country", "language", "hour");
