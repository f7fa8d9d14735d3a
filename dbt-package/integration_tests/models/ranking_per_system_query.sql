{#- Every system of the run in one query: system, query, one column per metric (the report
    'ranking_per_system_query' of polars_rank.yml, by: [system]). -#}
{{ polars_rank.evaluate(ref('run'), ref('qrels'), metrics=['nDCG@10', 'AP', 'RR'],
                        by=['system'], qrels_by=[], per_query=true) }}
