{#-
  polars_rank.report(name, run, qrels, ...): the SELECT of the report declared as `name` in
  polars_rank.yml, on the tables given (those the report's `tables:` lists).

    {{ polars_rank.report('daily_summary', ref('run'), ref('qrels')) }}
    {{ polars_rank.report('clicks', predictions=ref('preds')) }}   (tables: [predictions])
    {{ polars_rank.report('stars', ratings=ref('r'), predictions=ref('p')) }}
                                                 (tables: [ratings, predictions])
    {{ polars_rank.report('hybrid', runs=ref('stacked_runs')) }}   (fusion: rrf)

  A fusion report's SELECT is a run (query, doc, score) another model can evaluate.
-#}
{% macro report(name, run=none, qrels=none, interactions=none, catalog=none, item_features=none,
                predictions=none, ratings=none, runs=none) %}
  {%- set generated = polars_rank.generated_catalog() -%}
  {%- set found = [] -%}
  {%- for key, value in generated['reports'].items() -%}
    {%- if value['name'] == name -%}{%- do found.append(value) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not found -%}
    {%- set names = [] -%}
    {%- for value in generated['reports'].values() -%}
      {%- do names.append(value['name']) -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank: no report '" ~ name ~ "' in polars_rank.yml (declared: "
        ~ (names | sort | join(', ') or 'none') ~ "). Add it and run `polars-rank dbt generate`:"
        ~ "\n\nreports:\n  - name: " ~ name ~ "\n    metrics: [nDCG@10, P@5]") }}
  {%- endif -%}
  {%- set entry = found[0] -%}
  {%- set tables = polars_rank.given_tables(run, qrels, interactions, catalog, item_features,
                                            predictions, ratings, runs) -%}
  {%- if tables.keys() | sort != entry['tables'] | sort -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank: the report '" ~ name ~ "' reads the tables " ~ tojson(entry['tables'])
        ~ ", given " ~ tojson(tables.keys() | list)) }}
  {%- endif -%}
  {{ return(polars_rank.render_generated(generated, entry['macro'], tables,
                                         "the report '" ~ name ~ "'", entry)) }}
{% endmacro %}
