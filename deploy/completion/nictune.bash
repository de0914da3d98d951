# SPDX-License-Identifier: Apache-2.0
# bash completion for nictune (the CLI) and nictuned (the agent). Commands and options come from
# the binaries' own help text at completion time, so they are never out of date with them:
# `nictune help` and `nictune help COMMAND` for the CLI, `nictuned --help` for the agent.
# Series names for `nictune history --series=` come from `nictune history --list` (a running
# agent); without one there is nothing to offer.

# The options TEXT names, one per line: --name= for those it shows with a value, else --name.
_nictune_options_in() {
  grep -oE -- '--[a-z][a-z0-9_]*=?' <<<"$1" | sort -u |
    awk '{ name = $0; sub(/=$/, "", name); if (!(name in seen) || $0 ~ /=$/) seen[name] = $0 }
         END { for (name in seen) print seen[name] }'
}

# --name=value arrives as three words: --name, =, value (COMP_WORDBREAKS holds '='). When the
# word being completed is such a value, sets option and value (the caller's locals) and succeeds.
_nictune_valued_option() {
  local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD - 1]}
  if [[ $current == "=" ]]; then
    option=$previous value=
  elif [[ $previous == "=" ]]; then
    option=${COMP_WORDS[COMP_CWORD - 2]} value=$current
  else
    return 1
  fi
}

_nictune_complete_path() {
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -- "$1"))
}

_nictune_complete_value() {
  local cli=$1 option=$2 value=$3 values=
  # Options whose values the help text or the agent lists; any other value is a path.
  case $option in
    --as) values=$(grep -oE -- '--as=[a-z.]+' <<<"$("$cli" help recommend 2>/dev/null)" | cut -d= -f2) ;;
    --series)
      values=$("$cli" history --list 2>/dev/null | awk 'NF == 1 && $1 ~ /^[a-z_]+$/ {print $1}')
      local done_part=${value%,*}
      if [[ $done_part != "$value" ]]; then
        COMPREPLY=($(compgen -P "$done_part," -W "$values" -- "${value##*,}"))
        return
      fi
      ;;
    *) # --socket, --token_file and the like name files
      _nictune_complete_path "$value"
      return
      ;;
  esac
  COMPREPLY=($(compgen -W "$values" -- "$value"))
}

_nictune() {
  local cli=$1 current=${COMP_WORDS[COMP_CWORD]} command= word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    [[ $word == -* || -n $command ]] && continue
    command=$word
  done
  local option value
  if _nictune_valued_option; then
    _nictune_complete_value "$cli" "$option" "$value"
    return
  fi
  local help
  help=$("$cli" help ${command:+"$command"} 2>/dev/null)
  if [[ $current == -* ]]; then
    COMPREPLY=($(compgen -W "$(_nictune_options_in "$help"$'\n--json --version')" -- "$current"))
    [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
    return
  fi
  if [[ -z $command ]]; then
    local commands
    commands=$(sed -n '/^commands:/,/^$/p' <<<"$help" | awk '/^  [a-z]/ {print $1}' | sort -u)
    COMPREPLY=($(compgen -W "$commands" -- "$current"))
  fi
}

_nictuned() {
  local current=${COMP_WORDS[COMP_CWORD]} option value
  if _nictune_valued_option; then
    # Many of the agent's flags name files and directories; the others take words its help
    # explains.
    _nictune_complete_path "$value"
    return
  fi
  local options
  options=$("$1" --help 2>/dev/null | grep -oE -- '^ +--[a-z][a-z0-9_]*' | tr -d ' ' | sed 's/$/=/')
  COMPREPLY=($(compgen -W "$options --help --version --helpfull" -- "$current"))
  [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
}

complete -F _nictune nictune
complete -F _nictuned nictuned
