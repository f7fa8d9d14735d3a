{#- Classification metrics of a predictions table (user_id, segment, clicked, p), one row per
    segment: the report 'clicks_by_segment' of polars_rank.yml (tables: [predictions]). -#}
{{ polars_rank.evaluate(predictions=ref('predictions'),
                        metrics=['AUC', 'GAUC', 'LogLoss', 'AP', 'Brier', 'NE', 'F1', 'TP'],
                        label='clicked', score='p', by=['segment'], group='user_id') }}
