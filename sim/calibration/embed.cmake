# cmake -DIN=default.json -DOUT=calibration_default.c -P embed.cmake
# Compiles the default calibration into rxb-sim, so the engine depends on no
# file at run time (docs/engine-contract.md §2: no environment, no cwd).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* generated from sim/calibration/default.json by embed.cmake */\n"
  "const char sim_default_calibration_json[] = {${bytes} 0};\n")
