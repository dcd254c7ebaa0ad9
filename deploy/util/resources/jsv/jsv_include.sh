# pygridengine: the job submission verifier (JSV) helpers that a site's JSV script sources,
# with the functions and behaviour of Grid Engine 8.1.9's jsv_include.sh (written anew).
#
#   #!/bin/sh
#   jsv_on_start()  { return; }                  # may call jsv_send_env
#   jsv_on_verify() { ... jsv_accept "ok"; }     # must end with a jsv_accept/correct/reject*
#   . "$SGE_ROOT/util/resources/jsv/jsv_include.sh"
#   jsv_main
#
# The job's parameters are read with jsv_get_param NAME (qsub's switch names: N, l_hard,
# pe_name, pe_min, ...; and VERSION CONTEXT CLIENT USER GROUP CMDNAME CMDARGS CMDARG<i>),
# changed with jsv_set_param / jsv_del_param / jsv_sub_add_param / jsv_sub_del_param;
# its environment (after jsv_send_env in jsv_on_start) with jsv_get_env and friends.
# Setting jsv_logging_enabled=true logs the exchange to /tmp/jsv_<pid>.log.

PATH=/bin:/usr/bin

jsv_logging_enabled=${jsv_logging_enabled:-false}
__jsv_logfile="/tmp/jsv_$$.log"
__jsv_state=initialized
__jsv_params=""
__jsv_envs=""
__jsv_quit=false

# a name that may become part of a shell variable's name, or nothing
_jsv_name_ok()
{
   case "$1" in
      ""|*[!A-Za-z0-9_]*) return 1 ;;
   esac
   return 0
}

_jsv_send_command()
{
   printf '%s\n' "$*"
   _jsv_script_log "<<< $*"
}

_jsv_script_log()
{
   if [ "$jsv_logging_enabled" = true ]; then
      printf '%s\n' "$*" >>"$__jsv_logfile"
   fi
}

# ---- parameters -----------------------------------------------------------------------
jsv_is_param()
{
   _jsv_name_ok "$1" || { echo false; return; }
   if eval "[ -n \"\${jsv_param_$1+set}\" ]"; then echo true; else echo false; fi
}

jsv_get_param()
{
   _jsv_name_ok "$1" || return
   eval "[ -n \"\${jsv_param_$1+set}\" ] && printf '%s\n' \"\$jsv_param_$1\""
}

jsv_set_param()
{
   _jsv_name_ok "$1" || return
   eval "jsv_param_$1=\$2"
   case " $__jsv_params " in *" $1 "*) ;; *) __jsv_params="$__jsv_params $1" ;; esac
   _jsv_send_command PARAM "$1" "$2"
}

jsv_del_param()
{
   _jsv_name_ok "$1" || return
   if [ "`jsv_is_param "$1"`" = true ]; then
      unset "jsv_param_$1"
      _jsv_send_command PARAM "$1" ""
   fi
}

jsv_clear_params()
{
   for __jsv_i in $__jsv_params; do
      unset "jsv_param_$__jsv_i"
   done
   __jsv_params=""
}

jsv_show_params()
{
   for __jsv_i in $__jsv_params; do
      if [ "`jsv_is_param "$__jsv_i"`" = true ]; then
         _jsv_send_command LOG INFO "got param $__jsv_i=`jsv_get_param "$__jsv_i"`"
      fi
   done
}

# ---- lists inside a parameter: l_hard h_vmem=1G,h_rt=100  ac a=1,b ------------------------
# the value of SUB within parameter NAME's list (nothing when absent or without a value)
jsv_sub_get_param()
{
   __jsv_old_ifs=$IFS; IFS=,
   for __jsv_i in `jsv_get_param "$1"`; do
      case "$__jsv_i" in
         "$2="*) IFS=$__jsv_old_ifs; printf '%s\n' "${__jsv_i#*=}"; return ;;
      esac
   done
   IFS=$__jsv_old_ifs
}

jsv_sub_is_param()
{
   __jsv_old_ifs=$IFS; IFS=,
   for __jsv_i in `jsv_get_param "$1"`; do
      if [ "${__jsv_i%%=*}" = "$2" ]; then
         IFS=$__jsv_old_ifs; echo true; return
      fi
   done
   IFS=$__jsv_old_ifs
   echo false
}

# parameter NAME's list without SUB (sent only when NAME is set)
jsv_sub_del_param()
{
   [ "`jsv_is_param "$1"`" = true ] || return
   __jsv_new=""
   __jsv_old_ifs=$IFS; IFS=,
   for __jsv_i in `jsv_get_param "$1"`; do
      if [ "${__jsv_i%%=*}" != "$2" ]; then
         __jsv_new="${__jsv_new:+$__jsv_new,}$__jsv_i"
      fi
   done
   IFS=$__jsv_old_ifs
   jsv_set_param "$1" "$__jsv_new"
}

# parameter NAME's list with SUB set to VALUE (SUB alone when VALUE is empty)
jsv_sub_add_param()
{
   if [ -n "$3" ]; then __jsv_entry="$2=$3"; else __jsv_entry="$2"; fi
   __jsv_new=""
   __jsv_found=false
   __jsv_old_ifs=$IFS; IFS=,
   for __jsv_i in `jsv_get_param "$1"`; do
      if [ "${__jsv_i%%=*}" = "$2" ]; then
         __jsv_found=true
         __jsv_i=$__jsv_entry
      fi
      __jsv_new="${__jsv_new:+$__jsv_new,}$__jsv_i"
   done
   IFS=$__jsv_old_ifs
   if [ $__jsv_found = false ]; then
      __jsv_new="${__jsv_new:+$__jsv_new,}$__jsv_entry"
   fi
   jsv_set_param "$1" "$__jsv_new"
}

# ---- the job's environment (sent only after jsv_send_env in jsv_on_start) ---------------
jsv_send_env()
{
   _jsv_send_command SEND ENV
}

jsv_is_env()
{
   _jsv_name_ok "$1" || { echo false; return; }
   if eval "[ -n \"\${jsv_env_$1+set}\" ]"; then echo true; else echo false; fi
}

jsv_get_env()
{
   _jsv_name_ok "$1" || return
   eval "[ -n \"\${jsv_env_$1+set}\" ] && printf '%s\n' \"\$jsv_env_$1\""
}

_jsv_remember_env()
{
   eval "jsv_env_$1=\$2"
   case " $__jsv_envs " in *" $1 "*) ;; *) __jsv_envs="$__jsv_envs $1" ;; esac
}

jsv_add_env()
{
   _jsv_name_ok "$1" || return
   _jsv_remember_env "$1" "$2"
   _jsv_send_command ENV ADD "$1" "$2"
}

jsv_mod_env()
{
   _jsv_name_ok "$1" || return
   _jsv_remember_env "$1" "$2"
   _jsv_send_command ENV MOD "$1" "$2"
}

jsv_del_env()
{
   if [ "`jsv_is_env "$1"`" = true ]; then
      unset "jsv_env_$1"
      _jsv_send_command ENV DEL "$1"
   fi
}

jsv_clear_envs()
{
   for __jsv_i in $__jsv_envs; do
      unset "jsv_env_$__jsv_i"
   done
   __jsv_envs=""
}

jsv_show_envs()
{
   for __jsv_i in $__jsv_envs; do
      if [ "`jsv_is_env "$__jsv_i"`" = true ]; then
         _jsv_send_command LOG INFO "got env $__jsv_i=`jsv_get_env "$__jsv_i"`"
      fi
   done
}

# ---- results and logging --------------------------------------------------------------
_jsv_result()
{
   if [ "$__jsv_state" = verifying ]; then
      _jsv_send_command RESULT STATE "$@"
      __jsv_state=initialized
   else
      _jsv_send_command ERROR "JSV script will send RESULT command but is in state $__jsv_state"
   fi
}

jsv_accept()      { _jsv_result ACCEPT "$@"; }
jsv_correct()     { _jsv_result CORRECT "$@"; }
jsv_reject()      { _jsv_result REJECT "$@"; }
jsv_reject_wait() { _jsv_result REJECT_WAIT "$@"; }

jsv_log_info()    { _jsv_send_command LOG INFO "$*"; }
jsv_log_warning() { _jsv_send_command LOG WARNING "$*"; }
jsv_log_error()   { _jsv_send_command LOG ERROR "$*"; }

# ---- the loop -------------------------------------------------------------------------
_jsv_on_command()
{
   __jsv_command=${1%% *}
   __jsv_rest=${1#"$__jsv_command"}
   __jsv_rest=${__jsv_rest# }
   case "$__jsv_command" in
      QUIT)
         __jsv_quit=true ;;
      START)
         if [ "$__jsv_state" = initialized ]; then
            jsv_on_start
            _jsv_send_command STARTED
            __jsv_state=started
         else
            _jsv_send_command ERROR "JSV script got START command but is in state $__jsv_state"
         fi ;;
      PARAM)
         if [ "$__jsv_state" = started ]; then
            __jsv_name=${__jsv_rest%% *}
            __jsv_value=${__jsv_rest#"$__jsv_name"}
            __jsv_value=${__jsv_value# }
            if _jsv_name_ok "$__jsv_name"; then
               eval "jsv_param_$__jsv_name=\$__jsv_value"
               __jsv_params="$__jsv_params $__jsv_name"
            fi
         else
            _jsv_send_command ERROR "JSV script got PARAM command but is in state $__jsv_state"
         fi ;;
      ENV)
         if [ "$__jsv_state" = started ]; then
            __jsv_action=${__jsv_rest%% *}
            __jsv_rest=${__jsv_rest#"$__jsv_action"}
            __jsv_rest=${__jsv_rest# }
            __jsv_name=${__jsv_rest%% *}
            __jsv_value=${__jsv_rest#"$__jsv_name"}
            __jsv_value=${__jsv_value# }
            if [ "$__jsv_action" = ADD ] && _jsv_name_ok "$__jsv_name"; then
               _jsv_remember_env "$__jsv_name" "$__jsv_value"
            fi
         else
            _jsv_send_command ERROR "JSV script got ENV command but is in state $__jsv_state"
         fi ;;
      BEGIN)
         if [ "$__jsv_state" = started ]; then
            __jsv_state=verifying
            jsv_on_verify
            jsv_clear_params
            jsv_clear_envs
         else
            _jsv_send_command ERROR "JSV script got BEGIN command but is in state $__jsv_state"
         fi ;;
      SHOW)
         jsv_show_params
         jsv_show_envs ;;
      "")
         ;;
      *)
         _jsv_send_command ERROR "JSV script got unknown command \"$__jsv_command\"" ;;
   esac
}

jsv_main()
{
   _jsv_script_log "$0 started on `date`"
   while [ $__jsv_quit = false ]; do
      IFS= read -r __jsv_input || break
      _jsv_script_log ">>> $__jsv_input"
      _jsv_on_command "$__jsv_input"
   done
   _jsv_script_log "$0 is terminating on `date`"
}
