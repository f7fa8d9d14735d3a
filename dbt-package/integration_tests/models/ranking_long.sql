{{ polars_rank.report('ranking_long', ref('run'), ref('qrels')) }}
