# One golden run: rxb-sim on CONFIG must print exactly the result object
# stored beside it (NAME.out), byte for byte, except "sim_wall_s" (the
# run's wall-clock time, the one output that varies from run to run: set to
# 0 on both sides). A config naming "@TRACE@" as its pcap replays a trace
# this script writes first with rxb-tracegen (fixed seed and length).
# With -DUPDATE=1 it (re)writes NAME.out instead: only after a change that
# is meant to change the simulator's results.
#   cmake -DSIM=... -DTRACEGEN=... -DCONFIG=dir/NAME.json -DWORK=dir [-DUPDATE=1] -P golden.cmake
get_filename_component(name ${CONFIG} NAME_WE)
get_filename_component(dir ${CONFIG} DIRECTORY)
set(golden ${dir}/${name}.out)
file(READ ${CONFIG} cfg)
if(cfg MATCHES "@TRACE@")
  set(trace ${WORK}/golden-${name}.pcap)
  execute_process(COMMAND ${TRACEGEN} --out ${trace} --duration-ms 2 --rate-gbps 50
                  --line-gbps 100 --seed 3
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rxb-tracegen failed (${rc})")
  endif()
  string(REPLACE "@TRACE@" ${trace} cfg "${cfg}")
endif()
set(run_cfg ${WORK}/golden-${name}.json)
file(WRITE ${run_cfg} "${cfg}")
execute_process(COMMAND ${SIM} --config ${run_cfg} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rxb-sim --config ${run_cfg} exited ${rc}: ${err}")
endif()
string(REGEX REPLACE "\"sim_wall_s\": [-+.0-9eE]+" "\"sim_wall_s\": 0" out "${out}")
if(UPDATE)
  file(WRITE ${golden} "${out}")
  return()
endif()
file(READ ${golden} want)
if(NOT out STREQUAL want)
  set(got ${WORK}/golden-${name}.out)
  file(WRITE ${got} "${out}")
  message(FATAL_ERROR "${name}: the result differs from the golden one; diff -u ${golden} ${got}")
endif()
