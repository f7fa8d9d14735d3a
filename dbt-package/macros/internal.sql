{#- Internal (not part of the API): the catalogue of the generated macros, the request keys, the errors. -#}

{% macro generated_catalog() %}
  {%- if polars_rank_generated is not defined -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank: no generated macros in this project. Declare the reports in "
        ~ "polars_rank.yml and run `polars-rank dbt generate` in the project folder "
        ~ "(it writes macros/polars_rank_generated.sql).") }}
  {%- endif -%}
  {% do return(polars_rank_generated()) %}
{% endmacro %}

{#- A value as the generator keys it: a whole float as an int. -#}
{% macro normal_value(value) %}
  {%- if value is number and value is not sameas true and value is not sameas false
        and value is float and value == (value | int) -%}
    {% do return(value | int) %}
  {%- endif -%}
  {% do return(value) %}
{% endmacro %}

{#- The options that differ from their defaults; an unknown option is an error. -#}
{% macro request_options(given, defaults, what) %}
  {%- set out = {} -%}
  {%- for key, value in given.items() -%}
    {%- if key not in defaults -%}
      {{ exceptions.raise_compiler_error(
          "polars_rank: unknown option '" ~ key ~ "' of " ~ what ~ " (the options: "
          ~ (defaults.keys() | list | join(', ')) ~ ")") }}
    {%- endif -%}
    {%- set value = polars_rank.normal_value(value) -%}
    {%- set is_bool = value is sameas true or value is sameas false -%}
    {%- set default_bool = defaults[key] is sameas true or defaults[key] is sameas false -%}
    {%- if value != defaults[key] or is_bool != default_bool -%}
      {%- do out.update({key: value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {% do return(out) %}
{% endmacro %}

{% macro request_key(request) %}
  {% do return(local_md5(tojson(request, sort_keys=true))) %}
{% endmacro %}

{#- The SQL of a generated macro (`prefix` ~ the target's adapter type) on `tables`, or an
    error naming what to add to polars_rank.yml. `entry`: the report's catalogue entry,
    whose inferred `*_by` arguments pick the variant (inferred_by_suffix). -#}
{% macro render_generated(generated, prefix, tables, what, entry=none) %}
  {%- set adapter_type = target.type -%}
  {%- if adapter_type not in generated['adapters'] -%}
    {{ exceptions.raise_compiler_error(
        "polars_rank: " ~ what ~ " is not generated for the adapter '" ~ adapter_type
        ~ "' (generated: " ~ (generated['adapters'] | join(', ')) ~ "). Add it to "
        ~ "adapters: in polars_rank.yml and run `polars-rank dbt generate`.") }}
  {%- endif -%}
  {%- set suffix = polars_rank.inferred_by_suffix(entry, tables, what)
                   if entry is not none else '' -%}
  {{ return(polars_rank_generated_sql(prefix ~ adapter_type ~ suffix, tables)) }}
{% endmacro %}

{#- A report with `by` whose polars_rank.yml entry leaves out `qrels_by` (or
    `interactions_by`, `catalog_by`, `item_features_by`: entry['infer'], argument -> table)
    reads them from the tables, by the engines' rule: a `by` column the table has (in the
    adapter's column listing, names compared exactly) joins that table on it; one it lacks
    shares the table's rows across the groups. The generator compiled every outcome; this
    picks one (the suffix of its macros). When dbt only parses (no connection), the first. -#}
{% macro inferred_by_suffix(entry, tables, what) %}
  {%- if not entry.get('infer') -%}{{ return('') }}{%- endif -%}
  {%- if not execute -%}{{ return(entry['variants'].values() | list | first) }}{%- endif -%}
  {%- set present = {} -%}
  {%- for argument, table in entry['infer'] | dictsort -%}
    {%- set relation = tables[table] -%}
    {%- set columns = [] -%}
    {%- if relation is not string and not relation.is_cte -%}
      {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do columns.append(column.name) -%}
      {%- endfor -%}
    {%- endif -%}
    {%- if columns | length == 0 -%}
      {{ exceptions.raise_compiler_error(
          "polars_rank: " ~ what ~ " has by: " ~ tojson(entry['by']) ~ " and no " ~ argument
          ~ ": it reads which by columns the " ~ table ~ " table has from the database, but "
          ~ "the adapter lists no columns of " ~ relation ~ " (not built yet, an ephemeral "
          ~ "model or not a relation). Build it first, or state " ~ argument ~ " in "
          ~ "polars_rank.yml and in the model (the by columns the " ~ table ~ " table has; "
          ~ "[]: its rows are shared across the groups).") }}
    {%- endif -%}
    {%- set shared = [] -%}
    {%- for column in entry['by'] -%}
      {%- if column in columns -%}{%- do shared.append(column) -%}{%- endif -%}
    {%- endfor -%}
    {%- do present.update({argument: shared}) -%}
  {%- endfor -%}
  {{ return(entry['variants'][local_md5(tojson(present, sort_keys=true))]) }}
{% endmacro %}

{#- The tables given, by name (None left out), checked against what a report reads. -#}
{% macro given_tables(run, qrels, interactions, catalog, item_features, predictions=none,
                      ratings=none, runs=none) %}
  {%- set given = {} -%}
  {%- for name, table in [('run', run), ('qrels', qrels), ('interactions', interactions),
                          ('catalog', catalog), ('item_features', item_features),
                          ('ratings', ratings), ('predictions', predictions),
                          ('runs', runs)] -%}
    {%- if table is not none -%}{%- do given.update({name: table}) -%}{%- endif -%}
  {%- endfor -%}
  {% do return(given) %}
{% endmacro %}

{#- The generated input check of `input` (run or qrels) with `given` options on `model`. -#}
{% macro input_check(input, model, given) %}
  {%- set generated = polars_rank.generated_catalog() -%}
  {%- set present = {} -%}
  {%- for key, value in given.items() -%}
    {%- if value is not none -%}{%- do present.update({key: value}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set what = "polars_rank.valid_" ~ ('run' if input == 'run' else 'judgments') -%}
  {%- set options = polars_rank.request_options(present, generated['check_defaults'], what) -%}
  {%- set key = polars_rank.request_key({'kind': 'check', 'input': input,
                                         'options': options}) -%}
  {%- if key not in generated['checks'] -%}
    {%- set lines = ["polars_rank: this input check is not declared. Add it to "
                     ~ "polars_rank.yml and run `polars-rank dbt generate`:", "", "checks:",
                     "  - input: " ~ input] -%}
    {%- for k, v in options | dictsort -%}
      {%- do lines.append("    " ~ k ~ ": " ~ tojson(v)) -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(lines | join("\n")) }}
  {%- endif -%}
  {{ return(polars_rank.render_generated(generated, generated['checks'][key]['macro'],
                                         {'run': model}, what)) }}
{% endmacro %}
