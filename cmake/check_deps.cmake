# check_deps.cmake - the dependency direction of the modules, as a test
# (tests/CMakeLists.txt: test_module_deps; run by hand with
#   cmake -DEM_SOURCE_DIR=. -P cmake/check_deps.cmake).
#
# The modules in data-flow order: a module may include the headers of the
# modules before it (their public em_<module>.h only) and its own, never a
# later module's and never another module's private header.  A header is
# owned by the module whose folder (or a subfolder of it) holds it.  Every
# violation is listed with its file; the test fails on any.  The same test
# keeps device allocation in core/ and every MPI call in dist/ (below).
if(NOT EM_SOURCE_DIR)
  message(FATAL_ERROR "check_deps.cmake: set EM_SOURCE_DIR")
endif()
get_filename_component(EM_SOURCE_DIR ${EM_SOURCE_DIR} ABSOLUTE) # '.' by hand
set(modules core dist graph mesh assembly formats linalg solver eigen post model app)

# owner of every header of the tree's modules
foreach(m ${modules})
  file(GLOB_RECURSE hs RELATIVE ${EM_SOURCE_DIR} ${EM_SOURCE_DIR}/${m}/*.h ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(h ${hs})
    get_filename_component(n ${h} NAME)
    if(DEFINED owner_${n})
      message(SEND_ERROR "header name ${n} is in two modules (${owner_${n}} and ${m}): "
                         "an include by name would be ambiguous")
    endif()
    set(owner_${n} ${m})
  endforeach()
endforeach()

set(bad 0)
set(idx 0)
foreach(m ${modules})
  file(GLOB_RECURSE srcs ${EM_SOURCE_DIR}/${m}/*.c ${EM_SOURCE_DIR}/${m}/*.h
       ${EM_SOURCE_DIR}/${m}/*.cu ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(f ${srcs})
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(l ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" inc "${l}")
      get_filename_component(n ${inc} NAME)
      if(NOT DEFINED owner_${n})
        continue()  # a system or third-party header, or a generated one
      endif()
      set(o ${owner_${n}})
      if(o STREQUAL m)
        continue()
      endif()
      list(FIND modules ${o} oi)
      file(RELATIVE_PATH rf ${EM_SOURCE_DIR} ${f})
      if(oi GREATER idx)
        message(SEND_ERROR "${rf}: includes ${n} of ${o}/, a later module than ${m}/ "
                           "(order: ${modules})")
        math(EXPR bad "${bad} + 1")
      elseif(NOT n STREQUAL "em_${o}.h")
        message(SEND_ERROR "${rf}: includes ${n}, a private header of ${o}/ "
                           "(use em_${o}.h)")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
  math(EXPR idx "${idx} + 1")
endforeach()

# Device memory through one helper (core/devmem_cuda.c): outside core/, no
# module calls cudaMalloc( or cudaFree( itself, so every GPU allocation
# failure names its array (em_dev_alloc) and no array is freed twice
# (em_dev_free clears the pointer).  The stream-ordered pool
# (cudaMallocAsync / cudaFreeAsync) and pinned host memory are other calls.
set(raw 0)
foreach(m ${modules})
  if(m STREQUAL "core")
    continue()
  endif()
  file(GLOB_RECURSE srcs ${EM_SOURCE_DIR}/${m}/*.c ${EM_SOURCE_DIR}/${m}/*.h
       ${EM_SOURCE_DIR}/${m}/*.cu ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(f ${srcs})
    file(READ ${f} text)
    foreach(call cudaMalloc cudaFree)
      string(FIND "${text}" "${call}(" at)
      while(at GREATER -1)
        string(SUBSTRING "${text}" 0 ${at} head)
        string(REGEX MATCHALL "\n" nl "${head}")
        list(LENGTH nl line)
        math(EXPR line "${line} + 1")
        file(RELATIVE_PATH rf ${EM_SOURCE_DIR} ${f})
        message(SEND_ERROR "${rf}:${line}: calls ${call}( directly "
                           "(device memory goes through em_dev_alloc / em_dev_free of core/)")
        math(EXPR raw "${raw} + 1")
        math(EXPR at "${at} + 1")
        string(SUBSTRING "${text}" ${at} -1 rest)
        string(FIND "${rest}" "${call}(" next)
        if(next GREATER -1)
          math(EXPR at "${at} + ${next}")
        else()
          set(at -1)
        endif()
      endwhile()
    endforeach()
  endforeach()
endforeach()

# MPI only in dist/ (em_dist.h): outside it no source of a module, a test or
# a benchmark includes mpi.h or calls an MPI_ function, so that the serial
# build and a plain run never depend on MPI and one layer owns
# communication (DESIGN.md, "Scale-out (MPI)").
set(mpi 0)
foreach(m ${modules} tests bench)
  if(m STREQUAL "dist")
    continue()
  endif()
  file(GLOB_RECURSE srcs ${EM_SOURCE_DIR}/${m}/*.c ${EM_SOURCE_DIR}/${m}/*.h
       ${EM_SOURCE_DIR}/${m}/*.cu ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(f ${srcs})
    file(STRINGS ${f} hits REGEX "#[ \t]*include[ \t]*[<\"]mpi\\.h[>\"]|(^|[^A-Za-z0-9_])P?MPI_[A-Z][A-Za-z0-9_]*[ \t]*\\(")
    foreach(l ${hits})
      file(RELATIVE_PATH rf ${EM_SOURCE_DIR} ${f})
      string(STRIP "${l}" l)
      message(SEND_ERROR "${rf}: '${l}': MPI outside dist/ (call em_dist_* of em_dist.h)")
      math(EXPR mpi "${mpi} + 1")
    endforeach()
  endforeach()
endforeach()

if(bad OR raw OR mpi)
  message(FATAL_ERROR "${bad} include(s) against the module order, "
                      "${raw} raw device allocation(s) outside core/, "
                      "${mpi} MPI use(s) outside dist/")
endif()
message(STATUS "module dependency direction: ok (${modules}); device memory through core/; "
               "MPI only in dist/")
