/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

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

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

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

#line 88 "grammar/rainerscript.h"

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

#line 227 "grammar/rainerscript.h"

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

#line 273 "grammar/rainerscript.h"

#endif /* !YY_CFG_YY_GRAMMAR_RAINERSCRIPT_H_INCLUDED  */
