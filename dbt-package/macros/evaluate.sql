{#-
  polars_rank.evaluate(run, qrels, metrics=[...], **options): the SELECT of a declared report.

  The request (metric names in order, the tables given, the options that differ from
  to_sql's defaults, e.g. per_query=true, layout='long', left_out_column='left_out') must be
  declared in polars_rank.yml and generated (`polars-rank dbt generate`): the SQL is
  compiled by polars_rank, not by Jinja. An undeclared request fails when dbt parses the
  project and prints the entry to add.

    select * from ({{ polars_rank.evaluate(ref('run'), ref('qrels'),
                                           metrics=['nDCG@10', 'P@5'], per_query=true) }}) as r

  Classification metrics read a predictions table alone (no run; `tables: [predictions]`):

    {{ polars_rank.evaluate(predictions=ref('preds'), metrics=['AUC', 'LogLoss'],
                            label='clicked', score='p', by=['segment'], group='user') }}

  Rating metrics read ratings= and predictions= (`tables: [ratings, predictions]`; the
  options are rating_sql's: user, item, rating, prediction, by, weight):

    {{ polars_rank.evaluate(ratings=ref('ratings'), predictions=ref('preds'),
                            metrics=['RMSE', 'MAE'], rating='stars') }}
-#}
{% macro evaluate(run=none, qrels=none, metrics=none, interactions=none, catalog=none,
                  item_features=none, predictions=none, ratings=none) %}
  {%- if metrics is none or metrics is string or metrics | length == 0 -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank.evaluate needs metrics=[...], a list of metric names") }}
  {%- endif -%}
  {%- set generated = polars_rank.generated_catalog() -%}
  {%- set tables = polars_rank.given_tables(run, qrels, interactions, catalog, item_features,
                                            predictions, ratings) -%}
  {%- if tables | length == 0 -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank.evaluate needs a run (ranking and recommender metrics), "
        ~ "predictions= (classification metrics) or ratings= and predictions= (rating "
        ~ "metrics)") }}
  {%- endif -%}
  {%- set defaults = generated.get('rating_defaults', {}) if 'ratings' in tables
                     else generated['report_defaults'] -%}
  {%- set options = polars_rank.request_options(kwargs, defaults, 'polars_rank.evaluate') -%}
  {%- set request = {'kind': 'report', 'metrics': metrics | list,
                     'options': options, 'tables': tables.keys() | sort} -%}
  {%- set key = polars_rank.request_key(request) -%}
  {%- if key not in generated['reports'] -%}
    {%- set lines = ["polars_rank: this evaluation is not declared. Add it to polars_rank.yml "
                     ~ "and run `polars-rank dbt generate`:", "", "reports:",
                     "  - name: " ~ (model.name if model is defined and model.name else "my_report"),
                     "    metrics: " ~ tojson(metrics | list)] -%}
    {%- if tables.keys() | sort != ['qrels', 'run'] -%}
      {%- do lines.append("    tables: " ~ tojson(tables.keys() | list)) -%}
    {%- endif -%}
    {%- for k, v in options | dictsort -%}
      {%- do lines.append("    " ~ k ~ ": " ~ tojson(v)) -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(lines | join("\n")) }}
  {%- endif -%}
  {%- set found = generated['reports'][key] -%}
  {{ return(polars_rank.render_generated(generated, found['macro'], tables,
                                         "the report '" ~ found['name'] ~ "'", found)) }}
{% endmacro %}
