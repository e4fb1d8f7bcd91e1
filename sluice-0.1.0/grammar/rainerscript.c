/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 0

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1

/* Substitute the type names.  */
#define YYSTYPE         CFG_YYSTYPE
#define YYLTYPE         CFG_YYLTYPE
/* Substitute the variable and function names.  */
#define yyparse         cfg_yyparse
#define yylex           cfg_yylex
#define yyerror         cfg_yyerror
#define yydebug         cfg_yydebug
#define yynerrs         cfg_yynerrs
#define yylval          cfg_yylval
#define yychar          cfg_yychar
#define yylloc          cfg_yylloc


# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

/* Use api.header.include to #include this header
   instead of duplicating it here.  */
#ifndef YY_CFG_YY_GRAMMAR_RAINERSCRIPT_H_INCLUDED
# define YY_CFG_YY_GRAMMAR_RAINERSCRIPT_H_INCLUDED
/* Debug traces.  */
#ifndef CFG_YYDEBUG
# if defined YYDEBUG
#if YYDEBUG
#   define CFG_YYDEBUG 1
#  else
#   define CFG_YYDEBUG 0
#  endif
# else /* ! defined YYDEBUG */
#  define CFG_YYDEBUG 0
# endif /* ! defined YYDEBUG */
#endif  /* ! defined CFG_YYDEBUG */
#if CFG_YYDEBUG
extern int cfg_yydebug;
#endif
/* "%code requires" blocks.  */
#line 15 "grammar/rainerscript.y"

#include <stddef.h>
#include <stdint.h>
#include "ast.h"

struct cfg_lstr {
	char *s;
	size_t len;
};

struct cfg_strlist {
	char **arr;
	int n;
};

struct cfg_exprlist {
	struct expr **a;
	int n;
};

struct cfg_objtok {
	enum cfg_obj_type type;
	unsigned seq;
};

struct cfg_seqstr {
	char *s;
	unsigned seq;
};

#line 153 "grammar/rainerscript.c"

/* Token kinds.  */
#ifndef CFG_YYTOKENTYPE
# define CFG_YYTOKENTYPE
  enum cfg_yytokentype
  {
    CFG_YYEMPTY = -2,
    CFG_YYEOF = 0,                 /* "end of file"  */
    CFG_YYerror = 256,             /* error  */
    CFG_YYUNDEF = 257,             /* "invalid token"  */
    NAME = 258,                    /* "parameter name"  */
    FUNC = 259,                    /* "function name"  */
    CALLNAME = 260,                /* "ruleset name"  */
    BEGINOBJ = 261,                /* "object"  */
    ENDOBJ = 262,                  /* "')'"  */
    BEGIN_INCLUDE = 263,           /* "'include('"  */
    BEGIN_ACTION = 264,            /* "'action('"  */
    BEGIN_PROPERTY = 265,          /* "'property('"  */
    BEGIN_CONSTANT = 266,          /* "'constant('"  */
    BEGIN_TPL = 267,               /* "'template('"  */
    BEGIN_RULESET = 268,           /* "'ruleset('"  */
    STOP = 269,                    /* "'stop'"  */
    SET = 270,                     /* "'set'"  */
    RESET = 271,                   /* "'reset'"  */
    UNSET = 272,                   /* "'unset'"  */
    CONTINUE = 273,                /* "'continue'"  */
    EXISTS = 274,                  /* "'exists'"  */
    CALL = 275,                    /* "'call'"  */
    CALL_INDIRECT = 276,           /* "'call_indirect'"  */
    LEGACY_ACTION = 277,           /* "legacy action"  */
    LEGACY_RULESET = 278,          /* "'$RuleSet'"  */
    LEGACY_DIRECTIVE = 279,        /* "legacy directive"  */
    PRIFILT = 280,                 /* "selector"  */
    PROPFILT = 281,                /* "property filter"  */
    RELOAD_LOOKUP_TABLE = 282,     /* "'reload_lookup_table'"  */
    IF = 283,                      /* "'if'"  */
    THEN = 284,                    /* "'then'"  */
    ELSE = 285,                    /* "'else'"  */
    FOREACH = 286,                 /* "'foreach'"  */
    IN = 287,                      /* "'in'"  */
    DO = 288,                      /* "'do'"  */
    OR = 289,                      /* "'or'"  */
    AND = 290,                     /* "'and'"  */
    NOT = 291,                     /* "'not'"  */
    VAR = 292,                     /* "variable"  */
    STRING = 293,                  /* "string"  */
    BACKTICK = 294,                /* "backtick string"  */
    NUMBER = 295,                  /* "number"  */
    CMP_EQ = 296,                  /* "'=='"  */
    CMP_NE = 297,                  /* "'!='"  */
    CMP_LE = 298,                  /* "'<='"  */
    CMP_GE = 299,                  /* "'>='"  */
    CMP_LT = 300,                  /* "'<'"  */
    CMP_GT = 301,                  /* "'>'"  */
    CMP_CONTAINS = 302,            /* "'contains'"  */
    CMP_CONTAINSI = 303,           /* "'contains_i'"  */
    CMP_STARTSWITH = 304,          /* "'startswith'"  */
    CMP_STARTSWITHI = 305,         /* "'startswith_i'"  */
    UMINUS = 306,                  /* UMINUS  */
    LOWER_THAN_ELSE = 307          /* LOWER_THAN_ELSE  */
  };
  typedef enum cfg_yytokentype cfg_yytoken_kind_t;
#endif
/* Token kinds.  */
#define CFG_YYEMPTY -2
#define CFG_YYEOF 0
#define CFG_YYerror 256
#define CFG_YYUNDEF 257
#define NAME 258
#define FUNC 259
#define CALLNAME 260
#define BEGINOBJ 261
#define ENDOBJ 262
#define BEGIN_INCLUDE 263
#define BEGIN_ACTION 264
#define BEGIN_PROPERTY 265
#define BEGIN_CONSTANT 266
#define BEGIN_TPL 267
#define BEGIN_RULESET 268
#define STOP 269
#define SET 270
#define RESET 271
#define UNSET 272
#define CONTINUE 273
#define EXISTS 274
#define CALL 275
#define CALL_INDIRECT 276
#define LEGACY_ACTION 277
#define LEGACY_RULESET 278
#define LEGACY_DIRECTIVE 279
#define PRIFILT 280
#define PROPFILT 281
#define RELOAD_LOOKUP_TABLE 282
#define IF 283
#define THEN 284
#define ELSE 285
#define FOREACH 286
#define IN 287
#define DO 288
#define OR 289
#define AND 290
#define NOT 291
#define VAR 292
#define STRING 293
#define BACKTICK 294
#define NUMBER 295
#define CMP_EQ 296
#define CMP_NE 297
#define CMP_LE 298
#define CMP_GE 299
#define CMP_LT 300
#define CMP_GT 301
#define CMP_CONTAINS 302
#define CMP_CONTAINSI 303
#define CMP_STARTSWITH 304
#define CMP_STARTSWITHI 305
#define UMINUS 306
#define LOWER_THAN_ELSE 307

/* Value type.  */
#if ! defined CFG_YYSTYPE && ! defined CFG_YYSTYPE_IS_DECLARED
union CFG_YYSTYPE
{
#line 107 "grammar/rainerscript.y"

	char *s;
	int64_t n;
	unsigned seq;
	struct cfg_lstr str;
	struct cfg_objtok ob;
	struct cfg_seqstr ss;
	struct cfg_strlist sl;
	struct cfg_exprlist el;
	struct expr *e;
	struct script_stmt *st;
	struct cfg_param *p;
	struct cfg_obj *o;

#line 292 "grammar/rainerscript.c"

};
typedef union CFG_YYSTYPE CFG_YYSTYPE;
# define CFG_YYSTYPE_IS_TRIVIAL 1
# define CFG_YYSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
typedef struct cfg_pos CFG_YYLTYPE;


extern CFG_YYSTYPE cfg_yylval;
extern CFG_YYLTYPE cfg_yylloc;

int cfg_yyparse (void);

/* "%code provides" blocks.  */
#line 46 "grammar/rainerscript.y"

/* State shared by lexer.l, rainerscript.y and ast.c while one
 * configuration is parsed. */
struct cfg_parse_ctx {
	struct cfg_tree *tree;
	int n_errors;
	const char *file;           /* current file (owned by tree->files) */
	int line;                   /* current line in it */
	unsigned seq;               /* source-order counter for cfg_obj.seq */
	struct cfg_obj **objs_tail;
	struct script_stmt **top_tail; /* where top-level statements go */
	char last_tok[64];          /* text of the last token (for errors) */
};
extern struct cfg_parse_ctx cfg_pc;

int cfg_yylex(void);
int cfg_yyparse(void);
/* Lexer buffer stack (lexer.l). */
int cfg_lex_push_file(const char *path, const struct cfg_pos *from);
void cfg_lex_push_text(const char *text, size_t len, const char *name);
void cfg_lex_cleanup(void);
/* include(file= / text= mode=) and $IncludeConfig (lexer.l). */
void cfg_do_include(struct cfg_param *params, const struct cfg_pos *pos);
void cfg_include_glob(const char *pattern, int mode, const struct cfg_pos *pos);
/* Register a file name in the tree; returns the tree-owned copy. */
const char *cfg_tree_add_file(struct cfg_tree *t, const char *name);

#line 338 "grammar/rainerscript.c"

#endif /* !YY_CFG_YY_GRAMMAR_RAINERSCRIPT_H_INCLUDED  */
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_NAME = 3,                       /* "parameter name"  */
  YYSYMBOL_FUNC = 4,                       /* "function name"  */
  YYSYMBOL_CALLNAME = 5,                   /* "ruleset name"  */
  YYSYMBOL_BEGINOBJ = 6,                   /* "object"  */
  YYSYMBOL_ENDOBJ = 7,                     /* "')'"  */
  YYSYMBOL_BEGIN_INCLUDE = 8,              /* "'include('"  */
  YYSYMBOL_BEGIN_ACTION = 9,               /* "'action('"  */
  YYSYMBOL_BEGIN_PROPERTY = 10,            /* "'property('"  */
  YYSYMBOL_BEGIN_CONSTANT = 11,            /* "'constant('"  */
  YYSYMBOL_BEGIN_TPL = 12,                 /* "'template('"  */
  YYSYMBOL_BEGIN_RULESET = 13,             /* "'ruleset('"  */
  YYSYMBOL_STOP = 14,                      /* "'stop'"  */
  YYSYMBOL_SET = 15,                       /* "'set'"  */
  YYSYMBOL_RESET = 16,                     /* "'reset'"  */
  YYSYMBOL_UNSET = 17,                     /* "'unset'"  */
  YYSYMBOL_CONTINUE = 18,                  /* "'continue'"  */
  YYSYMBOL_EXISTS = 19,                    /* "'exists'"  */
  YYSYMBOL_CALL = 20,                      /* "'call'"  */
  YYSYMBOL_CALL_INDIRECT = 21,             /* "'call_indirect'"  */
  YYSYMBOL_LEGACY_ACTION = 22,             /* "legacy action"  */
  YYSYMBOL_LEGACY_RULESET = 23,            /* "'$RuleSet'"  */
  YYSYMBOL_LEGACY_DIRECTIVE = 24,          /* "legacy directive"  */
  YYSYMBOL_PRIFILT = 25,                   /* "selector"  */
  YYSYMBOL_PROPFILT = 26,                  /* "property filter"  */
  YYSYMBOL_RELOAD_LOOKUP_TABLE = 27,       /* "'reload_lookup_table'"  */
  YYSYMBOL_IF = 28,                        /* "'if'"  */
  YYSYMBOL_THEN = 29,                      /* "'then'"  */
  YYSYMBOL_ELSE = 30,                      /* "'else'"  */
  YYSYMBOL_FOREACH = 31,                   /* "'foreach'"  */
  YYSYMBOL_IN = 32,                        /* "'in'"  */
  YYSYMBOL_DO = 33,                        /* "'do'"  */
  YYSYMBOL_OR = 34,                        /* "'or'"  */
  YYSYMBOL_AND = 35,                       /* "'and'"  */
  YYSYMBOL_NOT = 36,                       /* "'not'"  */
  YYSYMBOL_VAR = 37,                       /* "variable"  */
  YYSYMBOL_STRING = 38,                    /* "string"  */
  YYSYMBOL_BACKTICK = 39,                  /* "backtick string"  */
  YYSYMBOL_NUMBER = 40,                    /* "number"  */
  YYSYMBOL_CMP_EQ = 41,                    /* "'=='"  */
  YYSYMBOL_CMP_NE = 42,                    /* "'!='"  */
  YYSYMBOL_CMP_LE = 43,                    /* "'<='"  */
  YYSYMBOL_CMP_GE = 44,                    /* "'>='"  */
  YYSYMBOL_CMP_LT = 45,                    /* "'<'"  */
  YYSYMBOL_CMP_GT = 46,                    /* "'>'"  */
  YYSYMBOL_CMP_CONTAINS = 47,              /* "'contains'"  */
  YYSYMBOL_CMP_CONTAINSI = 48,             /* "'contains_i'"  */
  YYSYMBOL_CMP_STARTSWITH = 49,            /* "'startswith'"  */
  YYSYMBOL_CMP_STARTSWITHI = 50,           /* "'startswith_i'"  */
  YYSYMBOL_51_ = 51,                       /* '+'  */
  YYSYMBOL_52_ = 52,                       /* '-'  */
  YYSYMBOL_53_ = 53,                       /* '&'  */
  YYSYMBOL_54_ = 54,                       /* '*'  */
  YYSYMBOL_55_ = 55,                       /* '/'  */
  YYSYMBOL_56_ = 56,                       /* '%'  */
  YYSYMBOL_UMINUS = 57,                    /* UMINUS  */
  YYSYMBOL_LOWER_THAN_ELSE = 58,           /* LOWER_THAN_ELSE  */
  YYSYMBOL_59_ = 59,                       /* '{'  */
  YYSYMBOL_60_ = 60,                       /* '}'  */
  YYSYMBOL_61_ = 61,                       /* '='  */
  YYSYMBOL_62_ = 62,                       /* '['  */
  YYSYMBOL_63_ = 63,                       /* ']'  */
  YYSYMBOL_64_ = 64,                       /* ','  */
  YYSYMBOL_65_ = 65,                       /* '('  */
  YYSYMBOL_66_ = 66,                       /* ')'  */
  YYSYMBOL_67_ = 67,                       /* ';'  */
  YYSYMBOL_YYACCEPT = 68,                  /* $accept  */
  YYSYMBOL_conf = 69,                      /* conf  */
  YYSYMBOL_include = 70,                   /* include  */
  YYSYMBOL_obj = 71,                       /* obj  */
  YYSYMBOL_propconst = 72,                 /* propconst  */
  YYSYMBOL_pc_item = 73,                   /* pc_item  */
  YYSYMBOL_nvlst = 74,                     /* nvlst  */
  YYSYMBOL_nv = 75,                        /* nv  */
  YYSYMBOL_strlist = 76,                   /* strlist  */
  YYSYMBOL_script = 77,                    /* script  */
  YYSYMBOL_sitem = 78,                     /* sitem  */
  YYSYMBOL_stmt = 79,                      /* stmt  */
  YYSYMBOL_block = 80,                     /* block  */
  YYSYMBOL_actlst = 81,                    /* actlst  */
  YYSYMBOL_s_act = 82,                     /* s_act  */
  YYSYMBOL_expr = 83,                      /* expr  */
  YYSYMBOL_fparams = 84                    /* fparams  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */
#line 74 "grammar/rainerscript.y"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include "sluice.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N) do { \
	if (N) (Cur) = YYRHSLOC(Rhs, 1); else (Cur) = YYRHSLOC(Rhs, 0); \
} while (0)

static void cfg_yyerror(const char *msg);
static struct expr *mk_expr(enum expr_type t, const struct cfg_pos *p, struct expr *l, struct expr *r);
static struct script_stmt *mk_stmt(enum stmt_type t, const struct cfg_pos *p);
static struct script_stmt *stmt_append(struct script_stmt *a, struct script_stmt *b);
static struct cfg_obj *mk_obj(enum cfg_obj_type t, unsigned seq, const struct cfg_pos *p, struct cfg_param *params);
static void add_obj(struct cfg_obj *o);
static void add_top_stmt(struct script_stmt *s);
static struct script_stmt *mk_prifilt(char *text, const struct cfg_pos *p, struct script_stmt *body);
static struct script_stmt *mk_propfilt(char *text, const struct cfg_pos *p, struct script_stmt *body);
static struct script_stmt *mk_legacy_action(char *text, unsigned seq, const struct cfg_pos *p);
static struct cfg_obj *mk_legacy(char *text, unsigned seq, const struct cfg_pos *p);
static void legacy_ruleset(char *name, unsigned seq, const struct cfg_pos *p);
static bool check_var(const char *v, const struct cfg_pos *p);
static const char *obj_type_name(enum cfg_obj_type t);

#line 464 "grammar/rainerscript.c"

#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_uint8 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_USE_ALLOCA
#  if YYSTACK_USE_ALLOCA
#   ifdef __GNUC__
#    define YYSTACK_ALLOC __builtin_alloca
#   elif defined __BUILTIN_VA_ARG_INCR
#    include <alloca.h> /* INFRINGES ON USER NAME SPACE */
#   elif defined _AIX
#    define YYSTACK_ALLOC __alloca
#   elif defined _MSC_VER
#    include <malloc.h> /* INFRINGES ON USER NAME SPACE */
#    define alloca _alloca
#   else
#    define YYSTACK_ALLOC alloca
#    if ! defined _ALLOCA_H && ! defined EXIT_SUCCESS
#     include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
      /* Use EXIT_SUCCESS as a witness for stdlib.h.  */
#     ifndef EXIT_SUCCESS
#      define EXIT_SUCCESS 0
#     endif
#    endif
#   endif
#  endif
# endif

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined CFG_YYLTYPE_IS_TRIVIAL && CFG_YYLTYPE_IS_TRIVIAL \
             && defined CFG_YYSTYPE_IS_TRIVIAL && CFG_YYSTYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  2
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   501

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  68
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  17
/* YYNRULES -- Number of rules.  */
#define YYNRULES  81
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  169

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   307


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,    56,    53,     2,
      65,    66,    54,    51,    64,    52,     2,    55,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,    67,
       2,    61,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    62,     2,    63,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    59,     2,    60,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      35,    36,    37,    38,    39,    40,    41,    42,    43,    44,
      45,    46,    47,    48,    49,    50,    57,    58
};

#if CFG_YYDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   199,   199,   200,   201,   202,   206,   209,   212,   213,
     214,   216,   218,   222,   223,   225,   226,   229,   230,   232,
     234,   236,   239,   240,   244,   245,   248,   249,   254,   255,
     257,   258,   261,   262,   263,   264,   265,   266,   271,   272,
     275,   276,   277,   280,   281,   284,   286,   287,   288,   289,
     290,   293,   294,   295,   296,   297,   298,   299,   300,   301,
     302,   303,   304,   305,   306,   307,   308,   309,   310,   311,
     312,   313,   314,   316,   317,   319,   320,   321,   322,   323,
     326,   327
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "parameter name",
  "function name", "ruleset name", "object", "')'", "'include('",
  "'action('", "'property('", "'constant('", "'template('", "'ruleset('",
  "'stop'", "'set'", "'reset'", "'unset'", "'continue'", "'exists'",
  "'call'", "'call_indirect'", "legacy action", "'$RuleSet'",
  "legacy directive", "selector", "property filter",
  "'reload_lookup_table'", "'if'", "'then'", "'else'", "'foreach'", "'in'",
  "'do'", "'or'", "'and'", "'not'", "variable", "string",
  "backtick string", "number", "'=='", "'!='", "'<='", "'>='", "'<'",
  "'>'", "'contains'", "'contains_i'", "'startswith'", "'startswith_i'",
  "'+'", "'-'", "'&'", "'*'", "'/'", "'%'", "UMINUS", "LOWER_THAN_ELSE",
  "'{'", "'}'", "'='", "'['", "']'", "','", "'('", "')'", "';'", "$accept",
  "conf", "include", "obj", "propconst", "pc_item", "nvlst", "nv",
  "strlist", "script", "sitem", "stmt", "block", "actlst", "s_act", "expr",
  "fparams", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-88)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-1)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
     -88,   405,   -88,   -88,   -88,   -88,   -88,   -88,   -88,   -88,
     -23,    -4,     7,   -88,    92,   116,   -88,   -88,   -88,   240,
     240,    -3,   116,    43,   -88,   -88,   -88,    49,   -88,    17,
      27,    38,    40,    51,    45,    52,    54,   -88,    58,    59,
     116,   -88,   -88,   -88,   -88,   116,    66,   116,   238,     1,
     -88,   -88,   -88,   116,   406,    75,    28,    53,   -88,   -88,
     -88,   -88,    63,    68,   116,   116,   -88,    79,    88,   -88,
     -88,   -88,   -12,   320,   116,   116,   116,   116,   116,   116,
     116,   116,   116,   116,   116,   116,   116,   116,   116,   116,
     116,   116,   -88,   -88,   -88,   168,   -88,   -88,   429,    37,
     240,    96,   -88,   -27,   -88,   192,   266,   293,   -88,    41,
      64,   -88,    94,   -88,   445,   445,    39,    39,    39,    39,
      39,    39,    39,    39,    39,    39,    31,    31,    31,   -88,
     -88,   -88,    56,   -88,   -88,   116,   -88,   103,   116,   -88,
     -88,    66,    29,   -88,   216,   -88,   -88,   -88,   -88,   -88,
     -88,   429,   240,   346,    47,   -88,   -88,   -88,   -88,   -88,
     -88,   101,   -88,    57,    93,   240,   -88,   -88,   -88
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_int8 yydefact[] =
{
       2,     0,     1,     6,    17,    17,    17,    17,    17,    47,
       0,     0,     0,    50,     0,     0,    46,     5,    39,     0,
       0,     0,     0,     0,    38,     3,     4,    28,    43,     0,
       0,     0,     0,     0,     0,     0,     0,    48,     0,     0,
       0,    78,    76,    77,    75,     0,     0,     0,     0,     0,
      40,    35,    36,     0,     0,     0,     0,     0,     8,    18,
       7,    45,     9,     0,     0,     0,    34,     0,     0,    53,
      71,    22,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,    49,    17,    42,     0,    24,    26,    80,     0,
       0,     0,    44,     0,    13,     0,     0,     0,    73,     0,
       0,    79,     0,    70,    52,    51,    54,    55,    56,    57,
      58,    59,    60,    61,    62,    63,    65,    66,    64,    67,
      68,    69,     0,    41,    25,     0,    37,    29,     0,    19,
      20,     0,     0,    12,     0,    33,    32,    74,    72,    23,
      27,    81,     0,     0,     0,    17,    17,    10,    14,    11,
      30,     0,    21,     0,     0,     0,    15,    16,    31
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int8 yypgoto[] =
{
     -88,   -88,   -88,   -88,   -88,   -88,    -5,   -88,    -2,    32,
     -87,     4,   -16,   -88,    82,    -9,    73
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,     1,    24,    25,   142,   158,    29,    59,    72,    95,
      96,    50,    51,    27,    28,    98,    99
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_uint8 yytable[] =
{
      30,    31,    32,    33,    52,    26,    48,    93,   134,     5,
       6,   139,   140,    54,    34,     9,    10,    11,    12,    13,
      57,    14,    15,    16,    58,    18,    19,    20,    21,    22,
      57,    69,    23,    35,    60,   141,    70,     6,    73,   155,
     156,    57,     9,    57,    36,    61,    13,    62,    14,    15,
      16,   111,   112,    97,    57,   106,   107,   134,    63,    57,
      57,    94,    53,   150,   166,   114,   115,   116,   117,   118,
     119,   120,   121,   122,   123,   124,   125,   126,   127,   128,
     129,   130,   131,    38,   137,    89,    90,    91,   132,   157,
      86,    87,    88,    89,    90,    91,    57,    37,    39,    97,
     167,   135,    56,   136,    71,   135,    64,   147,    55,    97,
     162,   112,   101,    65,   103,    40,    41,    42,    43,    44,
      38,    66,   104,    67,    68,   110,   151,   105,   138,   153,
     148,    45,   149,   152,   165,    39,   160,   144,   102,   154,
     109,    46,     0,     0,    47,   108,     0,     0,    97,   168,
     163,   164,    40,    41,    42,    43,    44,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,    45,     0,
       0,     0,     0,     0,    93,     0,     5,     6,    46,     0,
       0,    47,     9,    10,    11,    12,    13,     0,    14,    15,
      16,     0,    18,    19,    20,    21,    22,     0,    93,    23,
       5,     6,     0,     0,     0,     0,     9,    10,    11,    12,
      13,     0,    14,    15,    16,     0,    18,    19,    20,    21,
      22,     0,    93,    23,     5,     6,     0,     0,   133,     0,
       9,    10,    11,    12,    13,     0,    14,    15,    16,     0,
      18,    19,    20,    21,    22,     0,     0,    23,     5,     6,
       0,     0,   143,     0,     9,    10,    11,    12,    13,     0,
      14,    15,    16,     0,    18,    19,    20,    21,    22,     0,
       0,    23,    74,    75,     0,     0,   159,     0,     0,    76,
      77,    78,    79,    80,    81,    82,    83,    84,    85,    86,
      87,    88,    89,    90,    91,     0,     0,     0,     0,    49,
      74,    75,     0,     0,     0,    92,     0,    76,    77,    78,
      79,    80,    81,    82,    83,    84,    85,    86,    87,    88,
      89,    90,    91,     0,     0,     0,     0,    74,    75,     0,
       0,     0,     0,   145,    76,    77,    78,    79,    80,    81,
      82,    83,    84,    85,    86,    87,    88,    89,    90,    91,
       0,     0,     0,     0,    74,    75,     0,     0,     0,     0,
     146,    76,    77,    78,    79,    80,    81,    82,    83,    84,
      85,    86,    87,    88,    89,    90,    91,     0,     0,     0,
      74,    75,     0,     0,     0,     0,   113,    76,    77,    78,
      79,    80,    81,    82,    83,    84,    85,    86,    87,    88,
      89,    90,    91,     0,     0,     2,     3,     0,     0,     0,
       0,     4,   161,     5,     6,     0,     0,     7,     8,     9,
      10,    11,    12,    13,     0,    14,    15,    16,    17,    18,
      19,    20,    21,    22,     0,   100,    23,     0,     0,     0,
      74,    75,     0,     0,     0,     0,     0,    76,    77,    78,
      79,    80,    81,    82,    83,    84,    85,    86,    87,    88,
      89,    90,    91,    74,    75,     0,     0,     0,     0,     0,
      76,    77,    78,    79,    80,    81,    82,    83,    84,    85,
      86,    87,    88,    89,    90,    91,    76,    77,    78,    79,
      80,    81,    82,    83,    84,    85,    86,    87,    88,    89,
      90,    91
};

static const yytype_int16 yycheck[] =
{
       5,     6,     7,     8,    20,     1,    15,     6,    95,     8,
       9,    38,    39,    22,    37,    14,    15,    16,    17,    18,
       3,    20,    21,    22,     7,    24,    25,    26,    27,    28,
       3,    40,    31,    37,     7,    62,    45,     9,    47,    10,
      11,     3,    14,     3,    37,     7,    18,     7,    20,    21,
      22,    63,    64,    49,     3,    64,    65,   144,     7,     3,
       3,    60,    65,     7,     7,    74,    75,    76,    77,    78,
      79,    80,    81,    82,    83,    84,    85,    86,    87,    88,
      89,    90,    91,     4,   100,    54,    55,    56,    93,    60,
      51,    52,    53,    54,    55,    56,     3,     5,    19,    95,
       7,    64,    53,    66,    38,    64,    61,    66,    65,   105,
      63,    64,    37,    61,    61,    36,    37,    38,    39,    40,
       4,    67,    59,    65,    65,    37,   135,    59,    32,   138,
      66,    52,    38,    30,    33,    19,   152,   105,    56,   141,
      67,    62,    -1,    -1,    65,    66,    -1,    -1,   144,   165,
     155,   156,    36,    37,    38,    39,    40,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    52,    -1,
      -1,    -1,    -1,    -1,     6,    -1,     8,     9,    62,    -1,
      -1,    65,    14,    15,    16,    17,    18,    -1,    20,    21,
      22,    -1,    24,    25,    26,    27,    28,    -1,     6,    31,
       8,     9,    -1,    -1,    -1,    -1,    14,    15,    16,    17,
      18,    -1,    20,    21,    22,    -1,    24,    25,    26,    27,
      28,    -1,     6,    31,     8,     9,    -1,    -1,    60,    -1,
      14,    15,    16,    17,    18,    -1,    20,    21,    22,    -1,
      24,    25,    26,    27,    28,    -1,    -1,    31,     8,     9,
      -1,    -1,    60,    -1,    14,    15,    16,    17,    18,    -1,
      20,    21,    22,    -1,    24,    25,    26,    27,    28,    -1,
      -1,    31,    34,    35,    -1,    -1,    60,    -1,    -1,    41,
      42,    43,    44,    45,    46,    47,    48,    49,    50,    51,
      52,    53,    54,    55,    56,    -1,    -1,    -1,    -1,    59,
      34,    35,    -1,    -1,    -1,    67,    -1,    41,    42,    43,
      44,    45,    46,    47,    48,    49,    50,    51,    52,    53,
      54,    55,    56,    -1,    -1,    -1,    -1,    34,    35,    -1,
      -1,    -1,    -1,    67,    41,    42,    43,    44,    45,    46,
      47,    48,    49,    50,    51,    52,    53,    54,    55,    56,
      -1,    -1,    -1,    -1,    34,    35,    -1,    -1,    -1,    -1,
      67,    41,    42,    43,    44,    45,    46,    47,    48,    49,
      50,    51,    52,    53,    54,    55,    56,    -1,    -1,    -1,
      34,    35,    -1,    -1,    -1,    -1,    66,    41,    42,    43,
      44,    45,    46,    47,    48,    49,    50,    51,    52,    53,
      54,    55,    56,    -1,    -1,     0,     1,    -1,    -1,    -1,
      -1,     6,    66,     8,     9,    -1,    -1,    12,    13,    14,
      15,    16,    17,    18,    -1,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    -1,    29,    31,    -1,    -1,    -1,
      34,    35,    -1,    -1,    -1,    -1,    -1,    41,    42,    43,
      44,    45,    46,    47,    48,    49,    50,    51,    52,    53,
      54,    55,    56,    34,    35,    -1,    -1,    -1,    -1,    -1,
      41,    42,    43,    44,    45,    46,    47,    48,    49,    50,
      51,    52,    53,    54,    55,    56,    41,    42,    43,    44,
      45,    46,    47,    48,    49,    50,    51,    52,    53,    54,
      55,    56
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,    69,     0,     1,     6,     8,     9,    12,    13,    14,
      15,    16,    17,    18,    20,    21,    22,    23,    24,    25,
      26,    27,    28,    31,    70,    71,    79,    81,    82,    74,
      74,    74,    74,    74,    37,    37,    37,     5,     4,    19,
      36,    37,    38,    39,    40,    52,    62,    65,    83,    59,
      79,    80,    80,    65,    83,    65,    53,     3,     7,    75,
       7,     7,     7,     7,    61,    61,    67,    65,    65,    83,
      83,    38,    76,    83,    34,    35,    41,    42,    43,    44,
      45,    46,    47,    48,    49,    50,    51,    52,    53,    54,
      55,    56,    67,     6,    60,    77,    78,    79,    83,    84,
      29,    37,    82,    61,    59,    59,    83,    83,    66,    84,
      37,    63,    64,    66,    83,    83,    83,    83,    83,    83,
      83,    83,    83,    83,    83,    83,    83,    83,    83,    83,
      83,    83,    74,    60,    78,    64,    66,    80,    32,    38,
      39,    62,    72,    60,    77,    67,    67,    66,    66,    38,
       7,    83,    30,    83,    76,    10,    11,    60,    73,    60,
      80,    66,    63,    74,    74,    33,     7,     7,    80
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    68,    69,    69,    69,    69,    69,    70,    71,    71,
      71,    71,    71,    72,    72,    73,    73,    74,    74,    75,
      75,    75,    76,    76,    77,    77,    78,    78,    79,    79,
      79,    79,    79,    79,    79,    79,    79,    79,    79,    79,
      80,    80,    80,    81,    81,    82,    82,    82,    82,    82,
      82,    83,    83,    83,    83,    83,    83,    83,    83,    83,
      83,    83,    83,    83,    83,    83,    83,    83,    83,    83,
      83,    83,    83,    83,    83,    83,    83,    83,    83,    83,
      84,    84
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     0,     2,     2,     2,     2,     3,     3,     3,
       6,     6,     5,     0,     2,     3,     3,     0,     2,     3,
       3,     5,     1,     3,     1,     2,     1,     3,     1,     4,
       6,     8,     5,     5,     3,     2,     2,     4,     1,     1,
       1,     3,     2,     1,     3,     3,     1,     1,     2,     3,
       1,     3,     3,     2,     3,     3,     3,     3,     3,     3,
       3,     3,     3,     3,     3,     3,     3,     3,     3,     3,
       3,     2,     4,     3,     4,     1,     1,     1,     1,     3,
       1,     3
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = CFG_YYEMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == CFG_YYEMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use CFG_YYerror or CFG_YYUNDEF. */
#define YYERRCODE CFG_YYUNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if CFG_YYDEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined CFG_YYLTYPE_IS_TRIVIAL && CFG_YYLTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]));
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !CFG_YYDEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !CFG_YYDEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;
  int yyn = yypact[+*yyctx->yyssp];
  if (!yypact_value_is_default (yyn))
    {
      /* Start YYX at -YYN if negative to avoid negative indexes in
         YYCHECK.  In other words, skip the first -YYN actions for
         this state because they are default actions.  */
      int yyxbegin = yyn < 0 ? -yyn : 0;
      /* Stay within bounds of both yycheck and yytname.  */
      int yychecklim = YYLAST - yyn + 1;
      int yyxend = yychecklim < YYNTOKENS ? yychecklim : YYNTOKENS;
      int yyx;
      for (yyx = yyxbegin; yyx < yyxend; ++yyx)
        if (yycheck[yyx + yyn] == yyx && yyx != YYSYMBOL_YYerror
            && !yytable_value_is_error (yytable[yyx + yyn]))
          {
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = YY_CAST (yysymbol_kind_t, yyx);
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  switch (yykind)
    {
    case YYSYMBOL_NAME: /* "parameter name"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1495 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_FUNC: /* "function name"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1501 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_CALLNAME: /* "ruleset name"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1507 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_LEGACY_ACTION: /* "legacy action"  */
#line 180 "grammar/rainerscript.y"
            { free(((*yyvaluep).ss).s); }
#line 1513 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_LEGACY_RULESET: /* "'$RuleSet'"  */
#line 180 "grammar/rainerscript.y"
            { free(((*yyvaluep).ss).s); }
#line 1519 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_LEGACY_DIRECTIVE: /* "legacy directive"  */
#line 180 "grammar/rainerscript.y"
            { free(((*yyvaluep).ss).s); }
#line 1525 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_PRIFILT: /* "selector"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1531 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_PROPFILT: /* "property filter"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1537 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_VAR: /* "variable"  */
#line 178 "grammar/rainerscript.y"
            { free(((*yyvaluep).s)); }
#line 1543 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_STRING: /* "string"  */
#line 179 "grammar/rainerscript.y"
            { free(((*yyvaluep).str).s); }
#line 1549 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_BACKTICK: /* "backtick string"  */
#line 179 "grammar/rainerscript.y"
            { free(((*yyvaluep).str).s); }
#line 1555 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_include: /* include  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1561 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_obj: /* obj  */
#line 183 "grammar/rainerscript.y"
            { cfg_obj_free(((*yyvaluep).o)); }
#line 1567 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_propconst: /* propconst  */
#line 183 "grammar/rainerscript.y"
            { cfg_obj_free(((*yyvaluep).o)); }
#line 1573 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_pc_item: /* pc_item  */
#line 183 "grammar/rainerscript.y"
            { cfg_obj_free(((*yyvaluep).o)); }
#line 1579 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_nvlst: /* nvlst  */
#line 184 "grammar/rainerscript.y"
            { cfg_param_free(((*yyvaluep).p)); }
#line 1585 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_nv: /* nv  */
#line 184 "grammar/rainerscript.y"
            { cfg_param_free(((*yyvaluep).p)); }
#line 1591 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_strlist: /* strlist  */
#line 185 "grammar/rainerscript.y"
            { for (int i = 0; i < ((*yyvaluep).sl).n; i++) free(((*yyvaluep).sl).arr[i]); free(((*yyvaluep).sl).arr); }
#line 1597 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_script: /* script  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1603 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_sitem: /* sitem  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1609 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_stmt: /* stmt  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1615 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_block: /* block  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1621 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_actlst: /* actlst  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1627 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_s_act: /* s_act  */
#line 182 "grammar/rainerscript.y"
            { cfg_stmt_free(((*yyvaluep).st)); }
#line 1633 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_expr: /* expr  */
#line 181 "grammar/rainerscript.y"
            { cfg_expr_free(((*yyvaluep).e)); }
#line 1639 "grammar/rainerscript.c"
        break;

    case YYSYMBOL_fparams: /* fparams  */
#line 186 "grammar/rainerscript.y"
            { for (int i = 0; i < ((*yyvaluep).el).n; i++) cfg_expr_free(((*yyvaluep).el).a[i]); free(((*yyvaluep).el).a); }
#line 1645 "grammar/rainerscript.c"
        break;

      default:
        break;
    }
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/* Lookahead token kind.  */
int yychar;

/* The semantic value of the lookahead symbol.  */
YYSTYPE yylval;
/* Location data for the lookahead symbol.  */
YYLTYPE yylloc
# if defined CFG_YYLTYPE_IS_TRIVIAL && CFG_YYLTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
/* Number of syntax errors so far.  */
int yynerrs;




/*----------.
| yyparse.  |
`----------*/

int
yyparse (void)
{
    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = CFG_YYEMPTY; /* Cause a token to be read.  */

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == CFG_YYEMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex ();
    }

  if (yychar <= CFG_YYEOF)
    {
      yychar = CFG_YYEOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == CFG_YYerror)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = CFG_YYUNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    goto yydefault;
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = CFG_YYEMPTY;
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  switch (yyn)
    {
  case 3: /* conf: conf obj  */
#line 200 "grammar/rainerscript.y"
                                        { add_obj((yyvsp[0].o)); }
#line 1940 "grammar/rainerscript.c"
    break;

  case 4: /* conf: conf stmt  */
#line 201 "grammar/rainerscript.y"
                                        { add_top_stmt((yyvsp[0].st)); }
#line 1946 "grammar/rainerscript.c"
    break;

  case 5: /* conf: conf "'$RuleSet'"  */
#line 202 "grammar/rainerscript.y"
                                        { legacy_ruleset((yyvsp[0].ss).s, (yyvsp[0].ss).seq, &(yylsp[0])); }
#line 1952 "grammar/rainerscript.c"
    break;

  case 7: /* include: "'include('" nvlst "')'"  */
#line 209 "grammar/rainerscript.y"
                                        { cfg_do_include((yyvsp[-1].p), &(yylsp[-2])); cfg_param_free((yyvsp[-1].p)); (yyval.st) = NULL; }
#line 1958 "grammar/rainerscript.c"
    break;

  case 8: /* obj: "object" nvlst "')'"  */
#line 212 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj((yyvsp[-2].ob).type, (yyvsp[-2].ob).seq, &(yylsp[-2]), (yyvsp[-1].p)); }
#line 1964 "grammar/rainerscript.c"
    break;

  case 9: /* obj: "'template('" nvlst "')'"  */
#line 213 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_TEMPLATE, (yyvsp[-2].ob).seq, &(yylsp[-2]), (yyvsp[-1].p)); }
#line 1970 "grammar/rainerscript.c"
    break;

  case 10: /* obj: "'template('" nvlst "')'" '{' propconst '}'  */
#line 215 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_TEMPLATE, (yyvsp[-5].ob).seq, &(yylsp[-5]), (yyvsp[-4].p)); (yyval.o)->body = (yyvsp[-1].o); }
#line 1976 "grammar/rainerscript.c"
    break;

  case 11: /* obj: "'ruleset('" nvlst "')'" '{' script '}'  */
#line 217 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_RULESET, (yyvsp[-5].ob).seq, &(yylsp[-5]), (yyvsp[-4].p)); (yyval.o)->script = (yyvsp[-1].st); }
#line 1982 "grammar/rainerscript.c"
    break;

  case 12: /* obj: "'ruleset('" nvlst "')'" '{' '}'  */
#line 219 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_RULESET, (yyvsp[-4].ob).seq, &(yylsp[-4]), (yyvsp[-3].p)); }
#line 1988 "grammar/rainerscript.c"
    break;

  case 13: /* propconst: %empty  */
#line 222 "grammar/rainerscript.y"
                                        { (yyval.o) = NULL; }
#line 1994 "grammar/rainerscript.c"
    break;

  case 14: /* propconst: propconst pc_item  */
#line 223 "grammar/rainerscript.y"
                                        { struct cfg_obj **pp = &(yyvsp[-1].o); while (*pp) pp = &(*pp)->next; *pp = (yyvsp[0].o); (yyval.o) = (yyvsp[-1].o); }
#line 2000 "grammar/rainerscript.c"
    break;

  case 15: /* pc_item: "'property('" nvlst "')'"  */
#line 225 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_PROPERTY, (yyvsp[-2].ob).seq, &(yylsp[-2]), (yyvsp[-1].p)); }
#line 2006 "grammar/rainerscript.c"
    break;

  case 16: /* pc_item: "'constant('" nvlst "')'"  */
#line 226 "grammar/rainerscript.y"
                                        { (yyval.o) = mk_obj(CFG_OBJ_CONSTANT, (yyvsp[-2].ob).seq, &(yylsp[-2]), (yyvsp[-1].p)); }
#line 2012 "grammar/rainerscript.c"
    break;

  case 17: /* nvlst: %empty  */
#line 229 "grammar/rainerscript.y"
                                        { (yyval.p) = NULL; }
#line 2018 "grammar/rainerscript.c"
    break;

  case 18: /* nvlst: nvlst nv  */
#line 230 "grammar/rainerscript.y"
                                        { struct cfg_param **pp = &(yyvsp[-1].p); while (*pp) pp = &(*pp)->next; *pp = (yyvsp[0].p); (yyval.p) = (yyvsp[-1].p); }
#line 2024 "grammar/rainerscript.c"
    break;

  case 19: /* nv: "parameter name" '=' "string"  */
#line 232 "grammar/rainerscript.y"
                                        { (yyval.p) = sl_xcalloc(1, sizeof(*(yyval.p))); (yyval.p)->name = (yyvsp[-2].s); (yyval.p)->pos = (yylsp[-2]);
					  (yyval.p)->val.str = (yyvsp[0].str).s; }
#line 2031 "grammar/rainerscript.c"
    break;

  case 20: /* nv: "parameter name" '=' "backtick string"  */
#line 234 "grammar/rainerscript.y"
                                        { (yyval.p) = sl_xcalloc(1, sizeof(*(yyval.p))); (yyval.p)->name = (yyvsp[-2].s); (yyval.p)->pos = (yylsp[-2]);
					  (yyval.p)->val.str = (yyvsp[0].str).s; (yyval.p)->val.is_backtick = true; }
#line 2038 "grammar/rainerscript.c"
    break;

  case 21: /* nv: "parameter name" '=' '[' strlist ']'  */
#line 236 "grammar/rainerscript.y"
                                        { (yyval.p) = sl_xcalloc(1, sizeof(*(yyval.p))); (yyval.p)->name = (yyvsp[-4].s); (yyval.p)->pos = (yylsp[-4]);
					  (yyval.p)->val.is_array = true; (yyval.p)->val.arr = (yyvsp[-1].sl).arr; (yyval.p)->val.n_arr = (yyvsp[-1].sl).n; }
#line 2045 "grammar/rainerscript.c"
    break;

  case 22: /* strlist: "string"  */
#line 239 "grammar/rainerscript.y"
                                        { (yyval.sl).arr = sl_xmalloc(sizeof(char *)); (yyval.sl).arr[0] = (yyvsp[0].str).s; (yyval.sl).n = 1; }
#line 2051 "grammar/rainerscript.c"
    break;

  case 23: /* strlist: strlist ',' "string"  */
#line 240 "grammar/rainerscript.y"
                                        { (yyval.sl) = (yyvsp[-2].sl); (yyval.sl).arr = sl_xrealloc((yyval.sl).arr, sizeof(char *) * ((yyval.sl).n + 1));
					  (yyval.sl).arr[(yyval.sl).n++] = (yyvsp[0].str).s; }
#line 2058 "grammar/rainerscript.c"
    break;

  case 24: /* script: sitem  */
#line 244 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2064 "grammar/rainerscript.c"
    break;

  case 25: /* script: script sitem  */
#line 245 "grammar/rainerscript.y"
                                        { (yyval.st) = stmt_append((yyvsp[-1].st), (yyvsp[0].st)); }
#line 2070 "grammar/rainerscript.c"
    break;

  case 26: /* sitem: stmt  */
#line 248 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2076 "grammar/rainerscript.c"
    break;

  case 27: /* sitem: "object" nvlst "')'"  */
#line 249 "grammar/rainerscript.y"
                                        { cfg_error(&(yylsp[-2]), "object '%s()' is not permitted inside a ruleset or block "
						    "(only at the top level)", obj_type_name((yyvsp[-2].ob).type));
					  cfg_pc.n_errors++; cfg_param_free((yyvsp[-1].p)); (yyval.st) = NULL; }
#line 2084 "grammar/rainerscript.c"
    break;

  case 28: /* stmt: actlst  */
#line 254 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2090 "grammar/rainerscript.c"
    break;

  case 29: /* stmt: "'if'" expr "'then'" block  */
#line 256 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_IF, &(yylsp[-3])); (yyval.st)->cond = (yyvsp[-2].e); (yyval.st)->then_ = (yyvsp[0].st); }
#line 2096 "grammar/rainerscript.c"
    break;

  case 30: /* stmt: "'if'" expr "'then'" block "'else'" block  */
#line 257 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_IF, &(yylsp[-5])); (yyval.st)->cond = (yyvsp[-4].e); (yyval.st)->then_ = (yyvsp[-2].st); (yyval.st)->else_ = (yyvsp[0].st); }
#line 2102 "grammar/rainerscript.c"
    break;

  case 31: /* stmt: "'foreach'" '(' "variable" "'in'" expr ')' "'do'" block  */
#line 259 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_FOREACH, &(yylsp[-7])); (yyval.st)->var = (yyvsp[-5].s); (yyval.st)->value = (yyvsp[-3].e); (yyval.st)->then_ = (yyvsp[0].st);
					  check_var((yyvsp[-5].s), &(yylsp[-5])); }
#line 2109 "grammar/rainerscript.c"
    break;

  case 32: /* stmt: "'reset'" "variable" '=' expr ';'  */
#line 261 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_RESET, &(yylsp[-4])); (yyval.st)->var = (yyvsp[-3].s); (yyval.st)->value = (yyvsp[-1].e); check_var((yyvsp[-3].s), &(yylsp[-3])); }
#line 2115 "grammar/rainerscript.c"
    break;

  case 33: /* stmt: "'set'" "variable" '=' expr ';'  */
#line 262 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_SET, &(yylsp[-4])); (yyval.st)->var = (yyvsp[-3].s); (yyval.st)->value = (yyvsp[-1].e); check_var((yyvsp[-3].s), &(yylsp[-3])); }
#line 2121 "grammar/rainerscript.c"
    break;

  case 34: /* stmt: "'unset'" "variable" ';'  */
#line 263 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_UNSET, &(yylsp[-2])); (yyval.st)->var = (yyvsp[-1].s); check_var((yyvsp[-1].s), &(yylsp[-1])); }
#line 2127 "grammar/rainerscript.c"
    break;

  case 35: /* stmt: "selector" block  */
#line 264 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_prifilt((yyvsp[-1].s), &(yylsp[-1]), (yyvsp[0].st)); }
#line 2133 "grammar/rainerscript.c"
    break;

  case 36: /* stmt: "property filter" block  */
#line 265 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_propfilt((yyvsp[-1].s), &(yylsp[-1]), (yyvsp[0].st)); }
#line 2139 "grammar/rainerscript.c"
    break;

  case 37: /* stmt: "'reload_lookup_table'" '(' fparams ')'  */
#line 267 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_RELOAD_LOOKUP_TABLE, &(yylsp[-3]));
					  (yyval.st)->value = mk_expr(EXPR_FUNC, &(yylsp[-3]), NULL, NULL);
					  (yyval.st)->value->str = sl_xstrdup("reload_lookup_table");
					  (yyval.st)->value->args = (yyvsp[-1].el).a; (yyval.st)->value->n_args = (yyvsp[-1].el).n; }
#line 2148 "grammar/rainerscript.c"
    break;

  case 38: /* stmt: include  */
#line 271 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2154 "grammar/rainerscript.c"
    break;

  case 39: /* stmt: "legacy directive"  */
#line 272 "grammar/rainerscript.y"
                                        { add_obj(mk_legacy((yyvsp[0].ss).s, (yyvsp[0].ss).seq, &(yylsp[0]))); (yyval.st) = NULL; }
#line 2160 "grammar/rainerscript.c"
    break;

  case 40: /* block: stmt  */
#line 275 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2166 "grammar/rainerscript.c"
    break;

  case 41: /* block: '{' script '}'  */
#line 276 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[-1].st); }
#line 2172 "grammar/rainerscript.c"
    break;

  case 42: /* block: '{' '}'  */
#line 277 "grammar/rainerscript.y"
                                        { (yyval.st) = NULL; }
#line 2178 "grammar/rainerscript.c"
    break;

  case 43: /* actlst: s_act  */
#line 280 "grammar/rainerscript.y"
                                        { (yyval.st) = (yyvsp[0].st); }
#line 2184 "grammar/rainerscript.c"
    break;

  case 44: /* actlst: actlst '&' s_act  */
#line 281 "grammar/rainerscript.y"
                                        { (yyval.st) = stmt_append((yyvsp[-2].st), (yyvsp[0].st)); }
#line 2190 "grammar/rainerscript.c"
    break;

  case 45: /* s_act: "'action('" nvlst "')'"  */
#line 284 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_ACTION, &(yylsp[-2]));
					  (yyval.st)->obj = mk_obj(CFG_OBJ_ACTION, (yyvsp[-2].seq), &(yylsp[-2]), (yyvsp[-1].p)); }
#line 2197 "grammar/rainerscript.c"
    break;

  case 46: /* s_act: "legacy action"  */
#line 286 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_legacy_action((yyvsp[0].ss).s, (yyvsp[0].ss).seq, &(yylsp[0])); }
#line 2203 "grammar/rainerscript.c"
    break;

  case 47: /* s_act: "'stop'"  */
#line 287 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_STOP, &(yylsp[0])); }
#line 2209 "grammar/rainerscript.c"
    break;

  case 48: /* s_act: "'call'" "ruleset name"  */
#line 288 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_CALL, &(yylsp[-1])); (yyval.st)->name = (yyvsp[0].s); }
#line 2215 "grammar/rainerscript.c"
    break;

  case 49: /* s_act: "'call_indirect'" expr ';'  */
#line 289 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_CALL_INDIRECT, &(yylsp[-2])); (yyval.st)->value = (yyvsp[-1].e); }
#line 2221 "grammar/rainerscript.c"
    break;

  case 50: /* s_act: "'continue'"  */
#line 290 "grammar/rainerscript.y"
                                        { (yyval.st) = mk_stmt(STMT_CONTINUE, &(yylsp[0])); }
#line 2227 "grammar/rainerscript.c"
    break;

  case 51: /* expr: expr "'and'" expr  */
#line 293 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_AND, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2233 "grammar/rainerscript.c"
    break;

  case 52: /* expr: expr "'or'" expr  */
#line 294 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_OR, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2239 "grammar/rainerscript.c"
    break;

  case 53: /* expr: "'not'" expr  */
#line 295 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_NOT, &(yylsp[-1]), (yyvsp[0].e), NULL); }
#line 2245 "grammar/rainerscript.c"
    break;

  case 54: /* expr: expr "'=='" expr  */
#line 296 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_EQ, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2251 "grammar/rainerscript.c"
    break;

  case 55: /* expr: expr "'!='" expr  */
#line 297 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_NE, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2257 "grammar/rainerscript.c"
    break;

  case 56: /* expr: expr "'<='" expr  */
#line 298 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_LE, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2263 "grammar/rainerscript.c"
    break;

  case 57: /* expr: expr "'>='" expr  */
#line 299 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_GE, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2269 "grammar/rainerscript.c"
    break;

  case 58: /* expr: expr "'<'" expr  */
#line 300 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_LT, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2275 "grammar/rainerscript.c"
    break;

  case 59: /* expr: expr "'>'" expr  */
#line 301 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_GT, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2281 "grammar/rainerscript.c"
    break;

  case 60: /* expr: expr "'contains'" expr  */
#line 302 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_CONTAINS, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2287 "grammar/rainerscript.c"
    break;

  case 61: /* expr: expr "'contains_i'" expr  */
#line 303 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_CONTAINS_I, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2293 "grammar/rainerscript.c"
    break;

  case 62: /* expr: expr "'startswith'" expr  */
#line 304 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_STARTSWITH, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2299 "grammar/rainerscript.c"
    break;

  case 63: /* expr: expr "'startswith_i'" expr  */
#line 305 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_STARTSWITH_I, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2305 "grammar/rainerscript.c"
    break;

  case 64: /* expr: expr '&' expr  */
#line 306 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_CONCAT, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2311 "grammar/rainerscript.c"
    break;

  case 65: /* expr: expr '+' expr  */
#line 307 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_ADD, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2317 "grammar/rainerscript.c"
    break;

  case 66: /* expr: expr '-' expr  */
#line 308 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_SUB, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2323 "grammar/rainerscript.c"
    break;

  case 67: /* expr: expr '*' expr  */
#line 309 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_MUL, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2329 "grammar/rainerscript.c"
    break;

  case 68: /* expr: expr '/' expr  */
#line 310 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_DIV, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2335 "grammar/rainerscript.c"
    break;

  case 69: /* expr: expr '%' expr  */
#line 311 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_MOD, &(yylsp[-1]), (yyvsp[-2].e), (yyvsp[0].e)); }
#line 2341 "grammar/rainerscript.c"
    break;

  case 70: /* expr: '(' expr ')'  */
#line 312 "grammar/rainerscript.y"
                                        { (yyval.e) = (yyvsp[-1].e); }
#line 2347 "grammar/rainerscript.c"
    break;

  case 71: /* expr: '-' expr  */
#line 313 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_NEG, &(yylsp[-1]), (yyvsp[0].e), NULL); }
#line 2353 "grammar/rainerscript.c"
    break;

  case 72: /* expr: "'exists'" '(' "variable" ')'  */
#line 314 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_EXISTS, &(yylsp[-3]), mk_expr(EXPR_PROPERTY, &(yylsp[-1]), NULL, NULL), NULL);
					  (yyval.e)->l->str = (yyvsp[-1].s); (yyval.e)->l->str_len = strlen((yyvsp[-1].s)); check_var((yyvsp[-1].s), &(yylsp[-1])); }
#line 2360 "grammar/rainerscript.c"
    break;

  case 73: /* expr: "function name" '(' ')'  */
#line 316 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_FUNC, &(yylsp[-2]), NULL, NULL); (yyval.e)->str = (yyvsp[-2].s); }
#line 2366 "grammar/rainerscript.c"
    break;

  case 74: /* expr: "function name" '(' fparams ')'  */
#line 317 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_FUNC, &(yylsp[-3]), NULL, NULL); (yyval.e)->str = (yyvsp[-3].s);
					  (yyval.e)->args = (yyvsp[-1].el).a; (yyval.e)->n_args = (yyvsp[-1].el).n; }
#line 2373 "grammar/rainerscript.c"
    break;

  case 75: /* expr: "number"  */
#line 319 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_NUMBER, &(yylsp[0]), NULL, NULL); (yyval.e)->num = (yyvsp[0].n); }
#line 2379 "grammar/rainerscript.c"
    break;

  case 76: /* expr: "string"  */
#line 320 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_STRING, &(yylsp[0]), NULL, NULL); (yyval.e)->str = (yyvsp[0].str).s; (yyval.e)->str_len = (yyvsp[0].str).len; }
#line 2385 "grammar/rainerscript.c"
    break;

  case 77: /* expr: "backtick string"  */
#line 321 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_STRING, &(yylsp[0]), NULL, NULL); (yyval.e)->str = (yyvsp[0].str).s; (yyval.e)->str_len = (yyvsp[0].str).len; }
#line 2391 "grammar/rainerscript.c"
    break;

  case 78: /* expr: "variable"  */
#line 322 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_PROPERTY, &(yylsp[0]), NULL, NULL); (yyval.e)->str = (yyvsp[0].s); (yyval.e)->str_len = strlen((yyvsp[0].s)); }
#line 2397 "grammar/rainerscript.c"
    break;

  case 79: /* expr: '[' strlist ']'  */
#line 323 "grammar/rainerscript.y"
                                        { (yyval.e) = mk_expr(EXPR_ARRAY, &(yylsp[-2]), NULL, NULL); (yyval.e)->arr = (yyvsp[-1].sl).arr; (yyval.e)->n_arr = (yyvsp[-1].sl).n; }
#line 2403 "grammar/rainerscript.c"
    break;

  case 80: /* fparams: expr  */
#line 326 "grammar/rainerscript.y"
                                        { (yyval.el).a = sl_xmalloc(sizeof(struct expr *)); (yyval.el).a[0] = (yyvsp[0].e); (yyval.el).n = 1; }
#line 2409 "grammar/rainerscript.c"
    break;

  case 81: /* fparams: fparams ',' expr  */
#line 327 "grammar/rainerscript.y"
                                        { (yyval.el) = (yyvsp[-2].el); (yyval.el).a = sl_xrealloc((yyval.el).a, sizeof(struct expr *) * ((yyval.el).n + 1));
					  (yyval.el).a[(yyval.el).n++] = (yyvsp[0].e); }
#line 2416 "grammar/rainerscript.c"
    break;


#line 2420 "grammar/rainerscript.c"

      default: break;
    }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == CFG_YYEMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yytoken, &yylloc};
        if (yyreport_syntax_error (&yyctx) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= CFG_YYEOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == CFG_YYEOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc);
          yychar = CFG_YYEMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != CFG_YYEMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif

  return yyresult;
}

#line 331 "grammar/rainerscript.y"


struct cfg_parse_ctx cfg_pc;

static void cfg_yyerror(const char *msg)
{
	cfg_error(&cfg_yylloc, "%s", msg);
	cfg_pc.n_errors++;
}

/* Token names without the quoting bison adds to aliases. */
static void append_sym(char *buf, size_t sz, const char *name)
{
	size_t n = strlen(buf);
	if (name[0] == '"') {
		name++;
		size_t l = strlen(name);
		if (l && name[l - 1] == '"')
			l--;
		snprintf(buf + n, sz - n, "%.*s", (int)l, name);
	} else {
		snprintf(buf + n, sz - n, "%s", name);
	}
}

static int yyreport_syntax_error(const yypcontext_t *ctx)
{
	enum { MAXEXP = YYNTOKENS };
	yysymbol_kind_t exp[MAXEXP];
	char buf[768];
	int n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
	yysymbol_kind_t la = yypcontext_token(ctx);
	bool ops = false;

	if (la == YYSYMBOL_YYEOF) {
		snprintf(buf, sizeof(buf), "syntax error: unexpected end of file");
	} else {
		snprintf(buf, sizeof(buf), "syntax error at '%s': unexpected ", cfg_pc.last_tok);
		append_sym(buf, sizeof(buf), yysymbol_name(la));
	}
	/* after an expression every operator is possible: say so once */
	for (int i = 0; i < n; i++)
		if (exp[i] == YYSYMBOL_CMP_EQ)
			ops = true;
	int listed = 0;
	for (int i = 0; i < n && n <= 12 + (ops ? 18 : 0); i++) {
		bool is_op = exp[i] == YYSYMBOL_AND || exp[i] == YYSYMBOL_OR ||
			     (exp[i] >= YYSYMBOL_CMP_EQ && exp[i] <= YYSYMBOL_CMP_STARTSWITHI) ||
			     (strlen(yysymbol_name(exp[i])) == 3 && strchr("+-&*/%", yysymbol_name(exp[i])[1]));
		if (ops && is_op)
			continue;
		strncat(buf, listed ? " or " : ", expected ", sizeof(buf) - strlen(buf) - 1);
		append_sym(buf, sizeof(buf), yysymbol_name(exp[i]));
		listed++;
	}
	if (ops)
		strncat(buf, listed ? " or an operator" : ", expected an operator", sizeof(buf) - strlen(buf) - 1);
	cfg_error(yypcontext_location(ctx), "%s", buf);
	cfg_pc.n_errors++;
	return 0;
}

static struct expr *mk_expr(enum expr_type t, const struct cfg_pos *p, struct expr *l, struct expr *r)
{
	struct expr *e = sl_xcalloc(1, sizeof(*e));
	e->type = t;
	e->pos = *p;
	e->l = l;
	e->r = r;
	return e;
}

static struct script_stmt *mk_stmt(enum stmt_type t, const struct cfg_pos *p)
{
	struct script_stmt *s = sl_xcalloc(1, sizeof(*s));
	s->type = t;
	s->pos = *p;
	return s;
}

static struct script_stmt *stmt_append(struct script_stmt *a, struct script_stmt *b)
{
	if (!a)
		return b;
	struct script_stmt *t = a;
	while (t->next)
		t = t->next;
	t->next = b;
	return a;
}

static struct cfg_obj *mk_obj(enum cfg_obj_type t, unsigned seq, const struct cfg_pos *p, struct cfg_param *params)
{
	struct cfg_obj *o = sl_xcalloc(1, sizeof(*o));
	o->type = t;
	o->seq = seq;
	o->pos = *p;
	o->params = params;
	return o;
}

static void add_obj(struct cfg_obj *o)
{
	if (!o)
		return;
	*cfg_pc.objs_tail = o;
	while (o->next)
		o = o->next;
	cfg_pc.objs_tail = &o->next;
}

static void add_top_stmt(struct script_stmt *s)
{
	if (!s)
		return;
	*cfg_pc.top_tail = s;
	while (s->next)
		s = s->next;
	cfg_pc.top_tail = &s->next;
}

static struct script_stmt *mk_prifilt(char *text, const struct cfg_pos *p, struct script_stmt *body)
{
	struct script_stmt *s = mk_stmt(STMT_PRIFILT, p);
	char err[256];
	s->then_ = body;
	s->name = text;   /* the selector as written, for diagnostics */
	if (!cfg_decode_prifilt(text, s->pri_mask, err, sizeof(err))) {
		cfg_error(p, "%s", err);
		cfg_pc.n_errors++;
	}
	return s;
}

/* ":prop, [!]op, "value"" as matched by the lexer. */
static struct script_stmt *mk_propfilt(char *text, const struct cfg_pos *p, struct script_stmt *body)
{
	static const struct { const char *name; enum propfilt_op op; } ops[] = {
		{ "contains", PROPFILT_CONTAINS }, { "isequal", PROPFILT_ISEQUAL },
		{ "startswith", PROPFILT_STARTSWITH }, { "regex", PROPFILT_REGEX },
		{ "ereregex", PROPFILT_EREREGEX }, { "isempty", PROPFILT_ISEMPTY },
	};
	struct script_stmt *s = mk_stmt(STMT_PROPFILT, p);
	const char *c = text;
	s->then_ = body;
	while (*c == ' ' || *c == '\t')
		c++;
	c++; /* ':' */
	const char *ns = c;
	while (*c && *c != ',' && *c != ' ' && *c != '\t')
		c++;
	s->name = sl_xstrndup(ns, (size_t)(c - ns));
	while (*c == ' ' || *c == '\t' || *c == ',')
		c++;
	if (*c == '!') {
		s->propfilt_negate = true;
		c++;
	}
	const char *os = c;
	while (isalpha((unsigned char)*c))
		c++;
	size_t ol = (size_t)(c - os);
	bool found = false;
	for (size_t i = 0; i < SL_ARRAY_SIZE(ops); i++) {
		if (strlen(ops[i].name) == ol && !strncasecmp(os, ops[i].name, ol)) {
			s->propfilt_op = ops[i].op;
			found = true;
		}
	}
	if (!found) {
		cfg_error(p, "unknown property filter operation '%.*s' (expected contains, isequal, "
			  "startswith, regex, ereregex or isempty)", (int)ol, os);
		cfg_pc.n_errors++;
	}
	while (*c && *c != '"')
		c++;
	if (*c == '"')
		c++;
	size_t vl = strlen(c);
	if (vl && c[vl - 1] == '"')
		vl--;
	char *v = sl_xmalloc(vl + 1), *o = v;
	for (size_t i = 0; i < vl; i++) {
		if (c[i] == '\\' && i + 1 < vl && c[i + 1] == '"')
			i++;
		*o++ = c[i];
	}
	*o = '\0';
	s->propfilt_value = v;
	free(text);
	return s;
}

static struct script_stmt *mk_legacy_action(char *text, unsigned seq, const struct cfg_pos *p)
{
	struct script_stmt *s = mk_stmt(STMT_ACTION, p);
	struct cfg_param *par = sl_xcalloc(1, sizeof(*par));
	size_t l = strlen(text);
	while (l && (text[l - 1] == ' ' || text[l - 1] == '\t' || text[l - 1] == '\r'))
		text[--l] = '\0';
	par->name = sl_xstrdup("legacy");
	par->val.str = text;
	par->pos = *p;
	s->obj = mk_obj(CFG_OBJ_ACTION, seq, p, par);
	if (!strcmp(text, "~"))
		cfg_warn(p, "the legacy discard action '~' is deprecated, use 'stop' instead");
	return s;
}

/* "$Directive value" -> CFG_OBJ_LEGACY. */
static struct cfg_obj *mk_legacy(char *text, unsigned seq, const struct cfg_pos *p)
{
	const char *c = text + 1;
	const char *ne = c;
	while (*ne && *ne != ' ' && *ne != '\t')
		ne++;
	struct cfg_obj *o = mk_obj(CFG_OBJ_LEGACY, seq, p, NULL);
	o->legacy_name = sl_xstrndup(c, (size_t)(ne - c));
	for (char *q = o->legacy_name; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	while (*ne == ' ' || *ne == '\t')
		ne++;
	size_t vl = strlen(ne);
	while (vl && (ne[vl - 1] == ' ' || ne[vl - 1] == '\t' || ne[vl - 1] == '\r'))
		vl--;
	struct cfg_param *par = sl_xcalloc(1, sizeof(*par));
	par->name = sl_xstrdup("value");
	par->val.str = sl_xstrndup(ne, vl);
	par->pos = *p;
	o->params = par;
	free(text);
	return o;
}

/* Legacy "$RuleSet name": later top-level statements go to that ruleset
 * (RSYSLOG_DefaultRuleset switches back to the default one). The ruleset
 * object is synthesised (param name=NAME, param "legacy"="on") the first
 * time a name is seen. */
static void legacy_ruleset(char *text, unsigned seq, const struct cfg_pos *p)
{
	const char *c = text + strlen("$ruleset");
	while (*c == ' ' || *c == '\t')
		c++;
	size_t l = strlen(c);
	while (l && (c[l - 1] == ' ' || c[l - 1] == '\t' || c[l - 1] == '\r'))
		l--;
	char *name = sl_xstrndup(c, l);
	free(text);
	if (!strcasecmp(name, "RSYSLOG_DefaultRuleset")) {
		struct script_stmt **pp = &cfg_pc.tree->script;
		while (*pp)
			pp = &(*pp)->next;
		cfg_pc.top_tail = pp;
		free(name);
		return;
	}
	struct cfg_obj *rs = NULL;
	for (struct cfg_obj *o = cfg_pc.tree->objs; o; o = o->next) {
		if (o->type != CFG_OBJ_RULESET)
			continue;
		for (struct cfg_param *q = o->params; q; q = q->next)
			if (!strcmp(q->name, "name") && !q->val.is_array && !strcmp(q->val.str, name))
				rs = o;
	}
	if (!rs) {
		struct cfg_param *np = sl_xcalloc(1, sizeof(*np));
		struct cfg_param *lp = sl_xcalloc(1, sizeof(*lp));
		np->name = sl_xstrdup("name");
		np->val.str = name;
		np->pos = *p;
		np->next = lp;
		lp->name = sl_xstrdup("legacy");
		lp->val.str = sl_xstrdup("on");
		lp->pos = *p;
		rs = mk_obj(CFG_OBJ_RULESET, seq, p, np);
		add_obj(rs);
	} else {
		free(name);
	}
	struct script_stmt **pp = &rs->script;
	while (*pp)
		pp = &(*pp)->next;
	cfg_pc.top_tail = pp;
}

static bool check_var(const char *v, const struct cfg_pos *p)
{
	if (v[0] == '$' && (v[1] == '!' || v[1] == '.' || v[1] == '/'))
		return true;
	cfg_error(p, "'%s' is not a variable: only $!..., $.... and $/... can be used here", v);
	cfg_pc.n_errors++;
	return false;
}

static const char *obj_type_name(enum cfg_obj_type t)
{
	switch (t) {
	case CFG_OBJ_GLOBAL: return "global";
	case CFG_OBJ_MODULE: return "module";
	case CFG_OBJ_INPUT: return "input";
	case CFG_OBJ_ACTION: return "action";
	case CFG_OBJ_TEMPLATE: return "template";
	case CFG_OBJ_RULESET: return "ruleset";
	case CFG_OBJ_MAIN_QUEUE: return "main_queue";
	case CFG_OBJ_PROPERTY: return "property";
	case CFG_OBJ_CONSTANT: return "constant";
	case CFG_OBJ_TIMEZONE: return "timezone";
	case CFG_OBJ_PARSER: return "parser";
	case CFG_OBJ_LOOKUP_TABLE: return "lookup_table";
	case CFG_OBJ_DYN_STATS: return "dyn_stats";
	case CFG_OBJ_LEGACY: return "legacy";
	}
	return "?";
}
