{{ polars_rank.report('ranking_long', ref('run_bm25'), ref('qrels')) }}
