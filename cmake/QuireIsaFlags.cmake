# Per-ISA compile flags, chosen by a source file's name suffix:
#   *_avx2.cpp        AVX2 + FMA + F16C
#   *_avxvnni.cpp     AVX2 + AVX-VNNI
#   *_avx512.cpp      AVX-512 F/BW/VL/DQ
#   *_avx512vnni.cpp  AVX-512 + VNNI
#   *_avx512bf16.cpp  AVX-512 + BF16
set(QUIRE_FLAGS_AVX2 -mavx2 -mfma -mf16c)
set(QUIRE_FLAGS_AVXVNNI ${QUIRE_FLAGS_AVX2} -mavxvnni)
set(QUIRE_FLAGS_AVX512 ${QUIRE_FLAGS_AVX2} -mavx512f -mavx512bw -mavx512vl -mavx512dq)
set(QUIRE_FLAGS_AVX512VNNI ${QUIRE_FLAGS_AVX512} -mavx512vnni)
set(QUIRE_FLAGS_AVX512BF16 ${QUIRE_FLAGS_AVX512} -mavx512bf16)

function(quire_apply_isa_flags)
  foreach(src IN LISTS ARGN)
    get_filename_component(name ${src} NAME_WE)
    foreach(isa AVX512BF16 AVX512VNNI AVX512 AVXVNNI AVX2)
      string(TOLOWER ${isa} suffix)
      if(name MATCHES "_${suffix}$")
        set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${QUIRE_FLAGS_${isa}}")
        break()
      endif()
    endforeach()
  endforeach()
endfunction()
