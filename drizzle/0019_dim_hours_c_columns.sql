-- dim_hours' other text key columns in the "C" collation too (drizzle/0016 did `key`): the rebuild
-- builds its primary key in one sort over millions of rows, whose ties on `key` went on to compare
-- `kind`, `country` and `language` through strcoll() under the database's C.UTF-8 (libc), bytewise
-- now. On the 4.68M rows of the first million bench lines, one core, rows in random order: 18.1 s
-- instead of 22.7 s. Both collations order ASCII codes by code point and compare bytewise for
-- equality, so no read changes; a comparison with a column in the default collation takes "C".
ALTER TABLE "dim_hours" ALTER COLUMN "kind" TYPE text COLLATE "C", ALTER COLUMN "country" TYPE text COLLATE "C", ALTER COLUMN "language" TYPE text COLLATE "C";
