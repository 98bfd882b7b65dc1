# check_deps.cmake - the dependency direction of the modules, as a test
# (tests/CMakeLists.txt: test_module_deps; run by hand with
#   cmake -DEM_SOURCE_DIR=. -P cmake/check_deps.cmake).
#
# The modules in data-flow order: a module may include the headers of the
# modules before it (their public em_<module>.h only) and its own, never a
# later module's and never another module's private header.  A header is
# owned by the module whose folder (or a subfolder of it) holds it.  Every
# violation is listed with its file; the test fails on any.  The same test
# keeps device allocation in core/, every MPI call in dist/ (below).
if(NOT EM_SOURCE_DIR)
  message(FATAL_ERROR "check_deps.cmake: set EM_SOURCE_DIR")
endif()
get_filename_component(EM_SOURCE_DIR ${EM_SOURCE_DIR} ABSOLUTE) # '.' by hand
set(modules core dist graph mesh assembly formats linalg solver eigen model post app)

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

# One backend table per module that has one: in solver/ only the table
# (backend.c, which knows the backends of the build, and the tables
# backend_cpu.c, backend_cuda.c) asks whether this is CUDA; everything else
# reaches the backend through the table it was created with
# (docs/architecture.md).
set(cuda_tests 0)
set(table_solver backend.c backend_cpu.c backend_cuda.c)
foreach(m solver)
  file(GLOB_RECURSE srcs ${EM_SOURCE_DIR}/${m}/*.c ${EM_SOURCE_DIR}/${m}/*.h
       ${EM_SOURCE_DIR}/${m}/*.cu ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(f ${srcs})
    get_filename_component(n ${f} NAME)
    list(FIND table_${m} ${n} in_table)
    if(in_table GREATER -1)
      continue()
    endif()
    file(STRINGS ${f} hits REGEX "EM_HAVE_CUDA|EM_BACKEND_CUDA")
    foreach(l ${hits})
      file(RELATIVE_PATH rf ${EM_SOURCE_DIR} ${f})
      string(STRIP "${l}" l)
      message(SEND_ERROR "${rf}: asks for CUDA outside ${m}/'s backend table (${l}): "
                         "add a row to the table (${table_${m}}) instead")
      math(EXPR cuda_tests "${cuda_tests} + 1")
    endforeach()
  endforeach()
endforeach()

# No link without a use: every module a module links (em_module's DEPS in
# its CMakeLists.txt) has its public header included by some file of the
# module; a dependency that is only passed through is linked by the module
# that includes it (a link that nothing uses hides the real dependency
# direction and drags libraries along).
set(unused 0)
foreach(m ${modules})
  if(NOT EXISTS ${EM_SOURCE_DIR}/${m}/CMakeLists.txt)
    continue()
  endif()
  file(READ ${EM_SOURCE_DIR}/${m}/CMakeLists.txt cm)
  if(NOT cm MATCHES "em_module\\(em_${m}([^)]*)\\)")
    continue()
  endif()
  string(REGEX REPLACE "PRIVATE_LIBS.*" "" args "${CMAKE_MATCH_1}")
  if(NOT args MATCHES "DEPS(.*)")
    continue()
  endif()
  string(REGEX MATCHALL "em_[a-z]+" deps "${CMAKE_MATCH_1}")
  file(GLOB_RECURSE srcs ${EM_SOURCE_DIR}/${m}/*.c ${EM_SOURCE_DIR}/${m}/*.h
       ${EM_SOURCE_DIR}/${m}/*.cu ${EM_SOURCE_DIR}/${m}/*.cuh)
  foreach(d ${deps})
    set(used 0)
    foreach(f ${srcs})
      file(STRINGS ${f} hit REGEX "^[ \t]*#[ \t]*include[ \t]*\"${d}\\.h\"")
      if(hit)
        set(used 1)
        break()
      endif()
    endforeach()
    if(NOT used)
      message(SEND_ERROR "${m}/CMakeLists.txt: links ${d} but no file of ${m}/ includes ${d}.h "
                         "(drop it from DEPS, or link what ${m}/ includes)")
      math(EXPR unused "${unused} + 1")
    endif()
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

if(bad OR raw OR cuda_tests OR unused OR mpi)
  message(FATAL_ERROR "${bad} include(s) against the module order, "
                      "${raw} raw device allocation(s) outside core/, "
                      "${cuda_tests} CUDA test(s) outside a backend table, "
                      "${unused} unused link dependenc(ies), "
                      "${mpi} MPI use(s) outside dist/")
endif()
message(STATUS "module dependency direction: ok (${modules}); device memory through core/; "
               "solver/ asks for CUDA only in its backend table; every linked module is used; "
               "MPI only in dist/")
