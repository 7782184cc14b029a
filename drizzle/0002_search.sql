-- Keyword matching for mention lists (docs/TRACKING.md "Matching"): full-text GIN indexes over
-- case- and accent-folded titles and bodies. Built-ins only (no extension), so PGlite serves it too.
CREATE FUNCTION search_norm(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT translate(lower($1),
    'áàâäãåāăąçćčďéèêëēėęěíìîïīįıñńňóòôöõøōőřśšşßťúùûüūůűųýÿźžż',
    'aaaaaaaaacccdeeeeeeeeiiiiiiinnnoooooooorsssstuuuuuuuuyyzzz')
$$;
--> statement-breakpoint
CREATE INDEX "articles_title_search_idx" ON "articles" USING gin (to_tsvector('simple', search_norm("title")));
--> statement-breakpoint
CREATE INDEX "articles_body_search_idx" ON "articles" USING gin (to_tsvector('simple', search_norm("body")));
