{#- One system of the run seed (which holds several, told apart by `system`): the input of
    the single-run reports. -#}
{{ config(materialized='view') }}
select query, doc, score from {{ ref('run') }} where system = 'bm25'
