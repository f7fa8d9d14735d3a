{#- One row per system and day: a scheduled job runs
      dbt build --vars '{run_date: 2026-01-02}'
    and the report 'daily' of polars_rank.yml (by: [system]) evaluates every system of the
    run in one query. Running a day again replaces that day's rows (delete+insert on
    DuckDB and PostgreSQL, insert_overwrite of the day's partition on Spark).
    relevance_level=1.0 and per_query=false are the defaults: the request is still 'daily'. -#}
{%- if target.type == 'spark' -%}
  {#- Spark has no delete+insert: overwrite the day's partition (parquet tables) -#}
  {{ config(materialized='incremental', incremental_strategy='insert_overwrite',
            partition_by=['run_date'], file_format='parquet') }}
{%- else -%}
  {{ config(materialized='incremental', unique_key=['run_date', 'system'],
            incremental_strategy='delete+insert') }}
{%- endif %}
with report as (
{{ polars_rank.evaluate(ref('run'), ref('qrels'), metrics=['nDCG@10', 'AP'], by=['system'],
                        qrels_by=[], left_out_column='left_out', relevance_level=1.0, per_query=false) }}
)
select
  cast('{{ var("run_date", "2026-01-01") }}' as date) as run_date,
  report.*
from report
