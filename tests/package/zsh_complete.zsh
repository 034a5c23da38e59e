# Completes a command line in an interactive zsh on a pseudo-terminal (zsh/zpty) and writes the
# candidates compadd was given, one per line, to OUT; the last line is "<done>".
#   zsh -f zsh_complete.zsh FPATH_DIR 'cudasync wa' OUT
zmodload zsh/zpty
zpty z zsh -f -i
local line out=$3
zpty -w z "fpath=($1 \$fpath); PROMPT=; autoload -Uz compinit; compinit -u -D"
zpty -w z "compadd () { builtin compadd -O __hits \"\$@\"; (( \$#__hits )) && print -rl -- \$__hits >> $out; builtin compadd \"\$@\" }"
zpty -w z "_done () { print -r -- '<done>' >> $out }; comppostfuncs=(_done)"
zpty -w z "bindkey '^I' complete-word; echo ready"
repeat 100; do zpty -r z line; [[ $line == ready* ]] && break; done
zpty -w z "$2"$'\t'
repeat 100; do
  [[ -f $out ]] && grep -q '<done>' $out && break
  sleep 0.1
done
zpty -d z
