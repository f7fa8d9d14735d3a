{#-
  Generic data tests. valid_run and valid_judgments run polars_rank's input checks
  (check_sql: one row per failed check, none when the table is clean); between and
  equal_within test a report column (a null value fails both).

    models:
      - name: run
        data_tests:
          - polars_rank.valid_run
      - name: qrels
        data_tests:
          - polars_rank.valid_judgments:
              arguments: {relevance: grade}
      - name: daily_summary
        columns:
          - name: ndcg_at_10
            data_tests:
              - polars_rank.between: {arguments: {min_value: 0, max_value: 1}}
-#}

{#- The run: not empty, no null ids, no null or NaN score (rank with order_by='rank'), one
    row per (query, doc) unless duplicates='max'; with by=[...] (a run of several systems or
    segments), one row per (group, query, doc) and no null group value. -#}
{% test valid_run(model, query=none, doc=none, score=none, rank=none, order_by=none,
                  duplicates=none, by=none) %}
  {{ polars_rank.input_check('run', model, {'query': query, 'doc': doc, 'score': score,
                                            'rank': rank, 'order_by': order_by,
                                            'duplicates': duplicates, 'by': by}) }}
{% endtest %}

{#- The judgments: not empty, no null ids, numeric finite grades (at most a metric's
    max_grade with metrics=[...]), unique (query, doc) pairs unless duplicates='max'. -#}
{% test valid_judgments(model, query=none, doc=none, relevance=none, duplicates=none,
                        metrics=none) %}
  {{ polars_rank.input_check('qrels', model, {'query': query, 'doc': doc,
                                              'relevance': relevance,
                                              'duplicates': duplicates,
                                              'metrics': metrics}) }}
{% endtest %}

{#- Every value of the column between min_value and max_value (inclusive; either may be
    left out). -#}
{% test between(model, column_name, min_value=none, max_value=none) %}
with pr_dbt_input as (select * from {{ model }})
select * from pr_dbt_input
where {{ column_name }} is null
  {%- if min_value is not none %} or {{ column_name }} < {{ min_value }}{% endif %}
  {%- if max_value is not none %} or {{ column_name }} > {{ max_value }}{% endif %}
{% endtest %}

{#- Every value of the column within `tolerance` of `value` (a number or a SQL expression
    over the model's columns). -#}
{% test equal_within(model, column_name, value, tolerance=1e-12) %}
with pr_dbt_input as (select * from {{ model }})
select * from pr_dbt_input
where {{ column_name }} is null
   or abs({{ column_name }} - ({{ value }})) > {{ tolerance }}
{% endtest %}
